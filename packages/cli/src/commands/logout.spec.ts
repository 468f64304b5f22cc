import { home } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core logout`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "logout",
  summary: "Log out: end the session and clear ~/.core/credentials.json",
  usage: "core logout",
  options: [],
  examples: ["core logout"],
  environment: [home]
}
