import { limit, yes, home, apiUrl } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core platforms`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "platforms",
  summary: "The platform registry: list, show, create, and move platforms through their lifecycle",
  usage: "core platforms <list|show|create|suspend|restore|cancel|delete> [options]",
  options: [],
  subcommands: [
    {
      name: "list",
      summary: "Your platforms (operators: all), one page or --all",
      usage: "core platforms list [--limit <n>] [--status <s>] [--tier <t>] [--cursor <c>] [--all]",
      options: [limit, { flags: "--cursor <c>, --all", description: "The next page, or every page" }]
    },
    { name: "show", summary: "One platform", usage: "core platforms show <platform-id>", options: [] },
    { name: "create", summary: "A new platform (operators)", usage: "core platforms create <slug> --name <text> [--tier <t>] [--owner <user-id>]", options: [] },
    ...Object.entries({ suspend: "Suspend an active platform", restore: "Restore a suspended platform", cancel: "Cancel a platform (asks first)", delete: "Hard-delete a platform (asks first)" }).map(([name, summary]) => ({
      name,
      summary,
      usage: `core platforms ${name} <platform-id> [--reason <text>]${name === "cancel" || name === "delete" ? " [--yes]" : ""}`,
      options: [{ flags: "--reason <text>", description: "Recorded in its lifecycle" }, ...(name === "cancel" || name === "delete" ? [yes] : [])]
    }))
  ],
  examples: ["core platforms list --status active", "core platforms cancel plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS --yes"],
  environment: [apiUrl, home]
}
