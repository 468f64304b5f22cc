import type { CommandHelp } from "../spec.js"

/** `core help`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "help",
  summary: "Show help for core, for one command or for one subcommand",
  usage: "core help [command] [subcommand]",
  options: [],
  examples: ["core help keys", "core help keys create"],
  environment: []
}
