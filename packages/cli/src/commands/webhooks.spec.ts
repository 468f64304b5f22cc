import { apiUrl, home, limit, pages, yes } from "../help-options.js"
import type { CommandHelp, OptionHelp } from "../spec.js"

/** `--events <type,…>`, shared with `core listen`. */
export const eventsFlag: OptionHelp = { flags: "--events <type,…>", description: "Only these event types, comma-separated, e.g. tenant.created,job.succeeded (default: every type)" }

/** `core webhooks`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "webhooks",
  summary: "The organization's webhook endpoints: list, create, change, delete, rotate their secret, test, read their delivery log, send events again",
  usage: "core webhooks <list|create|update|delete|rotate|test|deliveries|replay|retry> [options]",
  options: [],
  subcommands: [
    { name: "list", summary: "Endpoints, newest first, one page or --all (never their secrets)", usage: "core webhooks list [--limit <n>] [--cursor <c>] [--all]", options: [limit, pages] },
    {
      name: "create",
      summary: "Create an endpoint for a URL; its signing secret (whsec_…) is shown this once",
      usage: "core webhooks create <url> [--events <type,…>] [--description <text>] [--platform <id>]",
      options: [
        eventsFlag,
        { flags: "--description <text>", description: "What it is for" },
        { flags: "--platform <id>", description: "Only this platform's events (default: every platform of the organization)" }
      ],
      examples: ["core webhooks create https://shop.example/hooks --events tenant.created,tenant.deleted", "core webhooks create https://shop.example/hooks --json"]
    },
    {
      name: "update",
      summary: "Change an endpoint's URL, event types or description, or enable or disable it",
      usage: "core webhooks update <endpoint-id> [--url <url>] [--events <type,…>] [--description <text>] [--enable|--disable]",
      options: [
        { flags: "--url <url>", description: "Where its events are posted" },
        eventsFlag,
        { flags: "--description <text>", description: "What it is for" },
        { flags: "--enable", description: "Send it events again" },
        { flags: "--disable", description: "Stop sending it events" }
      ]
    },
    { name: "delete", summary: "Delete an endpoint and its delivery log (asks first)", usage: "core webhooks delete <endpoint-id> [--yes]", options: [yes] },
    {
      name: "rotate",
      summary: "Give an endpoint a new signing secret, shown once; the old one keeps signing beside it for 24 hours",
      usage: "core webhooks rotate <endpoint-id>",
      options: []
    },
    { name: "test", summary: "Send a webhook.test event to an endpoint alone", usage: "core webhooks test <endpoint-id>", options: [] },
    {
      name: "deliveries",
      summary: "An endpoint's delivery attempts, newest first: status code, duration, error",
      usage: "core webhooks deliveries <endpoint-id> [--limit <n>] [--cursor <c>] [--all]",
      options: [limit, pages]
    },
    {
      name: "replay",
      summary: "Send an endpoint every kept event of its types since a time again (same webhook-id)",
      usage: "core webhooks replay <endpoint-id> --since <time>",
      options: [{ flags: "--since <time>", description: "An ISO 8601 time, e.g. 2026-12-01T00:00:00Z" }]
    },
    { name: "retry", summary: "Deliver an attempt's event to its endpoint again (same webhook-id)", usage: "core webhooks retry <delivery-id>", options: [] }
  ],
  examples: [
    "core webhooks create https://shop.example/hooks --events tenant.created",
    "core webhooks test whe_01JDQ3V6X4TQ7K9ZC2M8N5P0RS",
    "core webhooks deliveries whe_01JDQ3V6X4TQ7K9ZC2M8N5P0RS --limit 10",
    "core webhooks rotate whe_01JDQ3V6X4TQ7K9ZC2M8N5P0RS --json"
  ],
  environment: [apiUrl, home]
}
