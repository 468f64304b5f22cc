import { coreOrg, home } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core audit`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "audit",
  summary: "Read the audit log",
  usage: "core audit list [options]",
  options: [],
  subcommands: [
    {
      name: "list",
      summary: "Entries, newest first: one page, or every page with --all",
      usage: "core audit list [--org <id|slug>] [--actor <user id|me>] [--action <action|prefix.*>] [--from <ISO>] [--to <ISO>] [--limit <n>] [--cursor <c>] [--all]",
      options: [
        { flags: "--org <id|slug>", description: "Entries of one organization (default: $CORE_ORG, else your own entries)" },
        { flags: "--actor <user id|me>", description: "Entries by one actor" },
        { flags: "--action <action|prefix.*>", description: "One action, or a prefix such as session.*" },
        { flags: "--from <ISO>, --to <ISO>", description: "Time range (from inclusive, to exclusive)" },
        { flags: "--limit <n>, --cursor <c>", description: "Page size (1-100) and the page to read" },
        { flags: "--all", description: "Every page" }
      ]
    }
  ],
  examples: ["core audit list --org acme --action apikey.*", "core audit list --actor me --from 2025-01-01T00:00:00Z --all --json"],
  environment: [coreOrg, home]
}
