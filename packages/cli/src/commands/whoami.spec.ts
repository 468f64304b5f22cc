import { home } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core whoami`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "whoami",
  summary: "Show who is logged in (email, platform, role, expiry)",
  usage: "core whoami [--json]",
  options: [],
  examples: ["core whoami", "core whoami --json"],
  environment: [home]
}
