import { platformFlag, home, apiUrl } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core deploy`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "deploy",
  summary: "Deploy a built site: upload what the server lacks, follow the deployment, print its URL",
  usage: "core deploy <dir> [--branch <b>] [--platform <id>] [--no-follow]",
  options: [
    { flags: "--branch <b>", description: "A preview branch (served at <b>.<project>.localhost); default: production" },
    platformFlag,
    { flags: "--no-follow", description: "Answer once the upload is accepted" }
  ],
  examples: ["core deploy dist", "core deploy dist --branch feature-x", "core deploy dist --json"],
  environment: [apiUrl, home]
}
