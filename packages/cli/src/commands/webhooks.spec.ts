import { apiUrl, home, limit, pages, yes } from "../help-options.js"
import type { CommandHelp, OptionHelp } from "../spec.js"

/** `--events <type,…>`, shared with `core listen`. */
export const eventsFlag: OptionHelp = { flags: "--events <type,…>", description: "Only these event types, comma-separated, e.g. tenant.created,job.succeeded (default: every type)" }

/** `core webhooks`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "webhooks",
  summary: "The organization's webhook endpoints: list, create, delete, rotate their secret, test, read their delivery log",
  usage: "core webhooks <list|create|delete|rotate|test|deliveries> [options]",
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
    }
  ],
  examples: [
    "core webhooks create https://shop.example/hooks --events tenant.created",
    "core webhooks test whe_01JDQ3V6X4TQ7K9ZC2M8N5P0RS",
    "core webhooks deliveries whe_01JDQ3V6X4TQ7K9ZC2M8N5P0RS --limit 10",
    "core webhooks rotate whe_01JDQ3V6X4TQ7K9ZC2M8N5P0RS --json"
  ],
  environment: [apiUrl, home]
}
