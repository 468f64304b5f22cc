import { org, limit, yes, coreOrg, home } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core invitations`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "invitations",
  summary: "List, send and revoke invitations",
  usage: "core invitations <list|create|revoke> [options]",
  options: [org],
  subcommands: [
    { name: "list", summary: "Invitations of the organization", usage: "core invitations list [--limit <n>] [--org <id|slug>]", options: [limit] },
    {
      name: "create",
      summary: "Invite someone",
      usage: "core invitations create <email> [--role owner|admin|member] [--org <id|slug>]",
      options: [{ flags: "--role <role>", description: "owner, admin or member (default: member)" }]
    },
    { name: "revoke", summary: "Revoke a pending invitation", usage: "core invitations revoke <invitation id> [--yes] [--org <id|slug>]", options: [yes] }
  ],
  examples: ["core invitations create bob@example.com --role admin --org acme", "core invitations list", "core invitations revoke inv_123 --yes"],
  environment: [coreOrg, home]
}
