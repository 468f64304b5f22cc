import { limit, home } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core orgs`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "orgs",
  summary: "List, create and show organizations",
  usage: "core orgs <list|create|get> [options]",
  options: [],
  subcommands: [
    { name: "list", summary: "Your organizations", usage: "core orgs list [--limit <n>]", options: [limit] },
    {
      name: "create",
      summary: "Create one (you become its owner)",
      usage: "core orgs create <name> [--slug <slug>]",
      options: [{ flags: "--slug <slug>", description: "Its slug (default: from the name)" }],
      examples: ["core orgs create \"Acme Robotics\" --slug acme"]
    },
    { name: "get", summary: "One organization with its members", usage: "core orgs get <slug>", options: [] }
  ],
  examples: ["core orgs list", "core orgs create \"Acme Robotics\"", "core orgs get acme-robotics"],
  environment: [home]
}
