import { limit, platformFlag, home, apiUrl } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core deployments`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "deployments",
  summary: "A platform's deployments: list them, show one, roll back to one",
  usage: "core deployments <list|show|rollback> [options]",
  options: [platformFlag],
  subcommands: [
    { name: "list", summary: "Newest first", usage: "core deployments list [--limit <n>] [--cursor <c>] [--platform <id>]", options: [limit, platformFlag] },
    { name: "show", summary: "One deployment's status", usage: "core deployments show <deployment-id> [--platform <id>]", options: [platformFlag] },
    { name: "rollback", summary: "Make an earlier successful deployment live again", usage: "core deployments rollback <deployment-id> [--platform <id>]", options: [platformFlag] }
  ],
  examples: ["core deployments list", "core deployments rollback dep_01J..."],
  environment: [apiUrl, home]
}
