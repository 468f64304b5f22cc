import { org, limit, yes, coreOrg, home } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core members`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "members",
  summary: "List members, remove one, change a role",
  usage: "core members <list|remove|role> [options]",
  options: [org],
  subcommands: [
    { name: "list", summary: "Members of the organization", usage: "core members list [--limit <n>] [--org <id|slug>]", options: [limit] },
    { name: "remove", summary: "Remove a member", usage: "core members remove <member id|email> [--yes] [--org <id|slug>]", options: [yes] },
    { name: "role", summary: "Set a member's role (owner, admin, member)", usage: "core members role <member id> <owner|admin|member> [--org <id|slug>]", options: [] }
  ],
  examples: ["core members list --org acme", "core members role mem_123 admin", "core members remove bob@example.com --yes"],
  environment: [coreOrg, home]
}
