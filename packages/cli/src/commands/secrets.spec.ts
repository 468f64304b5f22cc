import { platformFlag, home, apiUrl } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core secrets`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "secrets",
  summary: "The platform's worker secrets: set them (NAME=value or stdin), list their names",
  usage: "core secrets <set|list> [options]",
  options: [platformFlag],
  subcommands: [
    { name: "set", summary: "Set one or more secrets; 'set NAME' reads the value from stdin", usage: "core secrets set <NAME=value|NAME>... [--platform <id>]", options: [platformFlag] },
    { name: "list", summary: "Names and when each was last set (never values)", usage: "core secrets list [--platform <id>]", options: [platformFlag] }
  ],
  examples: ["core secrets set API_URL=https://api.example.com", "printf '%s' \"$TOKEN\" | core secrets set API_TOKEN", "core secrets list --json"],
  environment: [apiUrl, home]
}
