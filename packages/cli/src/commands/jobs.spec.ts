import { limit, yes, pages, platformFlag, home, apiUrl } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core jobs`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
  name: "jobs",
  summary: "Provisioning jobs: list, show, watch live until they end, retry and cancel (operators)",
  usage: "core jobs <list|show|watch|retry|cancel> [options]",
  options: [],
  subcommands: [
    {
      name: "list",
      summary: "Jobs, newest first, of --platform (default: the login's; operators without one: every platform), one page or --all",
      usage: "core jobs list [--platform <id>] [--status QUEUED|RUNNING|COMPLETED|FAILED] [--limit <n>] [--cursor <c>] [--all]",
      options: [platformFlag, { flags: "--status <s>", description: "QUEUED, RUNNING, COMPLETED or FAILED" }, limit, pages]
    },
    { name: "show", summary: "One job: status, attempts, steps, progress, result", usage: "core jobs show <job-id>", options: [] },
    {
      name: "watch",
      summary: "Follow a job's events until it ends: live steps on a terminal, one line per event when piped; exit 0 COMPLETED, 1 FAILED",
      usage: "core jobs watch <job-id> [--timeout <seconds>]",
      options: [{ flags: "--timeout <s>", description: "Give up (exit 1) after this many seconds (default: wait until it ends)" }]
    },
    {
      name: "retry",
      summary: "Queue a FAILED job again (operators)",
      usage: "core jobs retry <job-id> [--reason <text>]",
      options: [{ flags: "--reason <text>", description: "Recorded in the job's events" }]
    },
    {
      name: "cancel",
      summary: "Cancel a QUEUED or RUNNING job: it becomes FAILED (operators; asks first)",
      usage: "core jobs cancel <job-id> [--reason <text>] [--yes]",
      options: [{ flags: "--reason <text>", description: "Recorded in the job's events" }, yes]
    }
  ],
  examples: ["core jobs list --status FAILED", "core jobs watch job_01JDQ3V6X4TQ7K9ZC2M8N5P0RS", "core jobs retry job_01JDQ3V6X4TQ7K9ZC2M8N5P0RS --reason \"edge fixed\""],
  environment: [apiUrl, home]
}
