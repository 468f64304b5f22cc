import { apiUrl, home } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core vault`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "vault",
  summary: "Core's architecture docs: ranked search and reading through the vault tool server (/mcp)",
  usage: "core vault <search|read> [options]",
  options: [],
  subcommands: [
    {
      name: "search",
      summary: "Ranked full-text search; the last word also matches as a prefix",
      usage: "core vault search <query> [--category <c>] [--limit <n>]",
      options: [
        { flags: "--category <c>", description: "services, concepts, cross-cutting, guides, rules, decisions or implementation" },
        { flags: "--limit <n>", description: "At most n results (1 to 100, default 10)" }
      ]
    },
    { name: "read", summary: "A whole document, by its path without .md", usage: "core vault read <path>", options: [] }
  ],
  examples: ["core vault search \"rate limit\"", "core vault search tenancy --category cross-cutting --json", "core vault read services/gateway"],
  environment: [apiUrl, home]
}
