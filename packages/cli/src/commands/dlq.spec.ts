import { limit, pages, home, apiUrl } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core dlq`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "dlq",
  summary: "The dead-letter list (operators): jobs that failed for good, and their replay",
  usage: "core dlq <list|replay> [options]",
  options: [],
  subcommands: [
    { name: "list", summary: "Dead letters, oldest failure first, one page or --all", usage: "core dlq list [--limit <n>] [--cursor <c>] [--all]", options: [limit, pages] },
    {
      name: "replay",
      summary: "Replay a dead letter as a new job of the same type and payload",
      usage: "core dlq replay <entry-id> [--reason <text>]",
      options: [{ flags: "--reason <text>", description: "Recorded in the new job's events" }]
    }
  ],
  examples: ["core dlq list --json", "core dlq replay dlq_01JDQ3V6X4TQ7K9ZC2M8N5P0RS"],
  environment: [apiUrl, home]
}
