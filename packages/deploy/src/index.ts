/**
 * @core/deploy — see README.md. The domain arrives with its issue; until then it holds only its own
 * settings (`DeployConfig`: the GitHub token), which the server reads and checks at start.
 */
export { DeployConfig, type DeploySettings } from "./Config.js"
