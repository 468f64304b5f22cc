import { org, limit, yes, coreOrg, home } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core grants`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "grants",
  summary: "List, create and delete permission grants and denials",
  usage: "core grants <list|create|delete> [options]",
  options: [org],
  subcommands: [
    {
      name: "list",
      summary: "Grants of the organization",
      usage: "core grants list [--user <user id>] [--limit <n>] [--org <id|slug>]",
      options: [{ flags: "--user <user id>", description: "Only this user's grants" }, limit]
    },
    {
      name: "create",
      summary: "Grant (or, with --deny, deny) a user one permission",
      usage: "core grants create --user <user id> --permission <permission> [--deny] [--expires <epoch seconds|ISO 8601>] [--org <id|slug>]",
      options: [
        { flags: "--user <user id>", description: "Who (required)" },
        { flags: "--permission <permission>", description: "What, e.g. billing:manage (required)" },
        { flags: "--deny", description: "A denial instead of a grant" },
        { flags: "--expires <time>", description: "When it ends: epoch seconds or ISO 8601 (default: never)" }
      ]
    },
    { name: "delete", summary: "Delete a grant or denial", usage: "core grants delete <grant id> [--yes]", options: [yes] }
  ],
  examples: ["core grants create --user usr_123 --permission billing:manage --expires 2030-01-01T00:00:00Z", "core grants list --user usr_123", "core grants delete grt_123 --yes"],
  environment: [coreOrg, home]
}
