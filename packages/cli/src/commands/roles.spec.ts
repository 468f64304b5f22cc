import { org, limit, yes, coreOrg, home } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core roles`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "roles",
  summary: "List, set and delete role-to-permission mappings",
  usage: "core roles <list|set|delete> [options]",
  options: [org],
  subcommands: [
    { name: "list", summary: "Role mappings of the organization", usage: "core roles list [--limit <n>] [--org <id|slug>]", options: [limit] },
    { name: "set", summary: "Create or replace a role's permissions", usage: "core roles set <role> [permission…] [--org <id|slug>]", options: [] },
    { name: "delete", summary: "Delete a role mapping", usage: "core roles delete <role> [--yes] [--org <id|slug>]", options: [yes] }
  ],
  examples: ["core roles list", "core roles set auditor audit:read members:read", "core roles delete auditor --yes"],
  environment: [coreOrg, home]
}
