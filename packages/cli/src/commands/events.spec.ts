import { apiUrl, home, limit, pages } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core events`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "events",
  summary: "The organization's events (kept 30 days): list and read them; follow them live with core listen",
  usage: "core events <list|get> [options]",
  options: [],
  subcommands: [
    {
      name: "list",
      summary: "Events, newest first, one page or --all",
      usage: "core events list [--type <type>] [--platform <id>] [--since <ISO 8601>] [--limit <n>] [--cursor <c>] [--all]",
      options: [
        { flags: "--type <type>", description: "Only events of this type, e.g. tenant.created" },
        { flags: "--platform <id>", description: "Only this platform's events" },
        { flags: "--since <ISO 8601>", description: "Only events created at or after this time" },
        limit,
        pages
      ]
    },
    { name: "get", summary: "One event, with its data", usage: "core events get <event-id>", options: [] }
  ],
  examples: ["core events list --type tenant.created --limit 5", "core events get evt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS --json"],
  environment: [apiUrl, home]
}
