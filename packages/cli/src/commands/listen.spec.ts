import { apiUrl, home } from "../help-options.js"
import type { CommandHelp } from "../spec.js"
import { eventsFlag } from "./webhooks.spec.js"

/** `core listen`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "listen",
  summary: "Forward the organization's events, as they happen, to a local URL, signed like webhooks (local development)",
  usage: "core listen --forward-to <url> [--events <type,…>] [--platform <id>]",
  options: [
    { flags: "--forward-to <url>", description: "Where each event is POSTed, e.g. http://localhost:3000/hooks (required)" },
    eventsFlag,
    { flags: "--platform <id>", description: "Only this platform's events" }
  ],
  examples: [
    "core listen --forward-to http://localhost:3000/hooks",
    "core listen --forward-to http://localhost:3000/hooks --events job.succeeded,job.failed",
    "core listen --forward-to http://127.0.0.1:8080/webhooks/core --platform plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS --json"
  ],
  environment: [apiUrl, home]
}
