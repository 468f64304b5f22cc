/**
 * @core/provisioning — see README.md. The domain arrives with its issue; until then it holds only its
 * own settings (`ProvisioningConfig`: the Cloudflare account), which the server reads and checks at start.
 */
export { type Cloudflare, ProvisioningConfig, type ProvisioningSettings } from "./Config.js"
