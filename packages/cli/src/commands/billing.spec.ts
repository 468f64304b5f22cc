import { limit, platformFlag, home, apiUrl } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core billing`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "billing",
  summary: "Billing: the subscription, plans, usage with a daily chart, invoices, the upgrade",
  usage: "core billing <status|plans|usage|invoices|upgrade> [options]",
  options: [],
  subcommands: [
    { name: "status", summary: "The platform's subscription: plan, status, period", usage: "core billing status [--platform <id>]", options: [platformFlag] },
    { name: "plans", summary: "The plans with their prices and allowances", usage: "core billing plans", options: [] },
    {
      name: "invoices",
      summary: "The platform's invoices, newest first",
      usage: "core billing invoices [--platform <id>] [--limit <n>] [--cursor <c>]",
      options: [platformFlag, limit, { flags: "--cursor <c>", description: "The next page's cursor" }]
    },
    {
      name: "upgrade",
      summary: "Upgrade a free platform to a paid plan (idempotent by key)",
      usage: "core billing upgrade <starter|growth|scale> --payment-method <pm> --email <email> [--idempotency-key <uuid>]",
      options: [
        { flags: "--payment-method <pm>", description: "A payment method: pm_card_visa, or a test card number on the local provider (required)" },
        { flags: "--email <email>", description: "The billing email (required)" },
        { flags: "--idempotency-key <uuid>", description: "Retry safely with the key a first attempt printed (default: a new one)" }
      ]
    },
    {
      name: "usage",
      summary: "This period's usage against the allowances, then one meter per day as a chart",
      usage: "core billing usage [--platform <id>] [--days <n> | --from <date> --to <date>] [--meter <requests|resource_hours|builds>] [--tenant <id>]",
      options: [
        platformFlag,
        { flags: "--days <n>", description: "Chart the last n days, 1 to 366 (default 30)" },
        { flags: "--from <date>, --to <date>", description: "Chart these days instead (YYYY-MM-DD, at most 366)" },
        { flags: "--meter <meter>", description: "requests (default), resource_hours or builds" },
        { flags: "--tenant <id>", description: "One tenant's usage" }
      ]
    }
  ],
  examples: ["core billing status", "core billing plans --json", "core billing upgrade growth --payment-method pm_card_visa --email billing@acme.example", "core billing invoices --limit 5", "core billing usage", "core billing usage --meter builds --days 14", "core billing usage --from 2026-11-01 --to 2026-11-25 --json"],
  environment: [apiUrl, home]
}
