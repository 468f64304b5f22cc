import { limit, yes, home, apiUrl } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core stacks`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "stacks",
  summary: "The stack catalogue: list, show, create, publish and deprecate stack templates and versions",
  usage: "core stacks <list|show|create|publish|deprecate> [options]",
  options: [],
  subcommands: [
    { name: "list", summary: "The active templates and their latest versions", usage: "core stacks list [--limit <n>]", options: [limit] },
    { name: "show", summary: "One template, its latest version and every version", usage: "core stacks show <name>", options: [] },
    {
      name: "create",
      summary: "A new template (operators and the static key)",
      usage: "core stacks create <name> --display-name <text> --description <text> [--icon <url>] [--domain <domain>]",
      options: [
        { flags: "--display-name <text>", description: "1 to 128 characters" },
        { flags: "--description <text>", description: "1 to 1024 characters" },
        { flags: "--icon <url>, --domain <domain>", description: "Optional" }
      ]
    },
    {
      name: "publish",
      summary: "Publish a version from a stack definition file (JSON: { resources: [...] })",
      usage: "core stacks publish <name> <version> --file <definition.json> --sdk <core sdk version>",
      options: [
        { flags: "--file <path>", description: "The stack definition, as JSON ('-' reads stdin)" },
        { flags: "--sdk <version>", description: "The Core SDK version it needs (e.g. 1.0.0)" }
      ]
    },
    {
      name: "deprecate",
      summary: "Deprecate a version, or the whole template when no version is given",
      usage: "core stacks deprecate <name> [version] [--yes]",
      options: [yes]
    }
  ],
  examples: [
    "core stacks list",
    "core stacks publish web-app 1.2.0 --file stack.json --sdk 1.0.0",
    "core stacks deprecate web-app 1.1.0 --yes"
  ],
  environment: [apiUrl, home]
}
