import { org, limit, yes, coreOrg, home } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core keys`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "keys",
  summary: "List, create and revoke API keys",
  usage: "core keys <list|create|revoke> [options]",
  options: [org],
  subcommands: [
    { name: "list", summary: "API keys of the organization (never the keys themselves)", usage: "core keys list [--limit <n>] [--org <id|slug>]", options: [limit] },
    {
      name: "create",
      summary: "Create a key; it is shown once",
      usage: "core keys create [--name <name>] [--permission <permission>]… [--expires <ISO 8601>] [--org <id|slug>]",
      options: [
        { flags: "--name <name>", description: "A name to recognise it by" },
        {
          flags: "--permission <permission>",
          description: "A permission it carries, e.g. entities:manage (repeatable; default: every :read permission you hold — platforms:read, entities:read, …)"
        },
        { flags: "--expires <ISO 8601>", description: "When it stops working (default: never)" }
      ],
      examples: ["core keys create --name ci --permission members:read", "core keys create --name deploy --expires 2030-01-01T00:00:00Z --json"]
    },
    { name: "revoke", summary: "Revoke a key", usage: "core keys revoke <key id> [--yes]", options: [yes] }
  ],
  examples: ["core keys list --org acme", "core keys create --name ci --permission members:read", "core keys revoke key_123 --yes"],
  environment: [coreOrg, home]
}
