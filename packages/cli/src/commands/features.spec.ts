import { limit, pages, platformFlag, home, apiUrl } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core features`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "features",
  summary: "An entity's features: list, activate (and --wait), deactivate, show, and its manifest",
  usage: "core features <list|activate|deactivate|show|manifest> [options]",
  options: [platformFlag, { flags: "--entity <entity-id>", description: "The entity (default: the platform's default tenant)" }],
  subcommands: [
    {
      name: "list",
      summary: "Activations in every environment (or --environment), one page or --all",
      usage: "core features list [--environment <e>] [--status <s>] [--feature <id>] [--limit <n>] [--cursor <c>] [--all]",
      options: [limit, pages]
    },
    {
      name: "activate",
      summary: "Activate a feature; --wait follows it until active or failed",
      usage: "core features activate <feature-id> --version <v> [--environment dev|stg|prod] [--config <json>] [--wait] [--timeout <seconds>]",
      options: [
        { flags: "--environment <e>", description: "dev, stg or prod (default: prod)" },
        { flags: "--config <json>", description: "A JSON object (package, serviceUrl, ...)" },
        { flags: "--wait, --timeout <s>", description: "Wait until it is active or failed, progress on stderr (default 120 s)" }
      ]
    },
    { name: "deactivate", summary: "Deactivate a feature", usage: "core features deactivate <feature-id> [--environment dev|stg|prod]", options: [] },
    { name: "show", summary: "One activation", usage: "core features show <activation-id>", options: [] },
    { name: "manifest", summary: "The active features of an environment (default prod)", usage: "core features manifest [--environment dev|stg|prod]", options: [] }
  ],
  examples: ["core features activate billing --version 1.2.0 --wait", "core features manifest --environment stg --json"],
  environment: [apiUrl, home]
}
