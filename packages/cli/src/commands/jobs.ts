import type { Provisioning } from "@core/contracts"
import { confirmDestructive, expectPositionals, limitOf, parseOptions, verbOf, yesOption } from "../args.js"
import { CliError, ExitCode, usageError } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./jobs.spec.js"
import { withSession, type Session } from "../session.js"
import type { Column, Ui } from "../ui.js"
import { defined, oneOf, pageOptions, platformOption } from "./resources.js"

type Job = Provisioning.JobRecord
type JobEvent = Provisioning.JobEvent
type Step = Provisioning.JobStep

const STATUSES = ["QUEUED", "RUNNING", "COMPLETED", "FAILED"] as const

const percent = (progress: number): string => `${Math.round(progress * 100)}%`

const columns: ReadonlyArray<Column<Job>> = [
  { header: "ID", value: (j) => j.jobId },
  { header: "TYPE", value: (j) => j.type },
  { header: "STATUS", value: (j) => j.status },
  { header: "PROGRESS", value: (j) => percent(j.progress) },
  { header: "ATTEMPTS", value: (j) => `${j.attempts}/${j.maxAttempts}` },
  { header: "PLATFORM", value: (j) => j.platformId },
  { header: "CREATED", value: (j) => j.createdAt }
]

const stepColumns: ReadonlyArray<Column<Step>> = [
  { header: "STEP", value: (s) => s.name },
  { header: "STATUS", value: (s) => s.status },
  { header: "STARTED", value: (s) => s.startedAt },
  { header: "FINISHED", value: (s) => s.finishedAt },
  { header: "ERROR", value: (s) => s.error }
]

/** `--platform`, else the login's platform, else none (an operator's list of every platform's jobs). */
const platformFilter = (session: Session, flag: string | undefined): string | undefined => flag ?? session.credentials().platformId ?? undefined

const mark: Record<string, string> = { running: "…", completed: "✓", failed: "✗" }

/** The lines `watch` draws on a terminal: the job's status and progress bar, then one line per step. */
const frameOf = (jobId: string, status: string, progress: number, steps: ReadonlyArray<Step>): Array<string> => {
  const filled = Math.round(progress * 20)
  return [
    `Job ${jobId}: ${status} [${"#".repeat(filled)}${"-".repeat(20 - filled)}] ${percent(progress)}`,
    ...steps.map((s) => `  ${mark[s.status] ?? " "} ${s.name}${s.error === null ? "" : `: ${s.error}`}`)
  ]
}

/** One event as a plain line (piped output, or stderr under --json). */
const lineOf = (e: JobEvent): string =>
  e.kind === "step" && e.step !== null
    ? `step ${e.step.name} ${e.step.status}${e.step.error === null ? "" : `: ${e.step.error}`}`
    : e.kind === "progress"
      ? `progress ${percent(e.progress)}`
      : `status ${e.from === null ? "" : `${e.from} -> `}${e.status} (attempt ${e.attempt})${e.reason === null ? "" : `: ${e.reason}`}${e.actor === null ? "" : ` by ${e.actor}`}`

/**
 * `core jobs watch`: follows the job's event stream until it ends. On a terminal it redraws the
 * job's status, progress bar and steps in place; piped, one line per event; `--json`, one JSON
 * event per line. Exit 0 when the job ends COMPLETED, 1 when FAILED.
 */
const watch = async (ui: Ui, session: Session, jobId: string, timeoutSeconds: number | undefined): Promise<number> => {
  const jobs = session.client.provisioning.jobs
  const signal = timeoutSeconds === undefined ? undefined : AbortSignal.timeout(timeoutSeconds * 1000)
  const steps = new Map<string, Step>()
  let drawn = 0
  let status = "QUEUED"
  let progress = 0
  const draw = () => {
    const lines = frameOf(jobId, status, progress, [...steps.values()])
    ui.line(`${drawn > 0 ? `\x1b[${drawn}A\x1b[J` : ""}${lines.join("\n")}`)
    drawn = lines.length
  }
  try {
    for await (const e of jobs.watch(jobId, defined({ signal }))) {
      status = e.status
      progress = e.progress
      if (e.step !== null) steps.set(e.step.name, e.step)
      if (ui.json) ui.line(JSON.stringify(e))
      else if (ui.interactive) draw()
      else ui.line(lineOf(e))
    }
  } catch (error) {
    if (signal?.aborted === true) throw new CliError(`Job ${jobId} is still ${status} after ${timeoutSeconds}s: core jobs show ${jobId}`, ExitCode.failure, "TIMEOUT")
    throw error
  }
  const job = await jobs.get(jobId)
  if (!ui.json) {
    if (ui.interactive) {
      status = job.status
      progress = job.progress
      for (const step of job.steps) steps.set(step.name, step)
      draw()
    }
    ui.line(`Job ${jobId} (${job.type}) ${job.status}${job.error === null ? "" : `: ${job.error}`}`)
  }
  if (job.status === "FAILED") return ExitCode.failure
  return ExitCode.ok
}

/** `--timeout <seconds>` of `watch` (none by default). */
const timeoutOf = (text: string | undefined, usage: string): number | undefined => {
  if (text === undefined) return undefined
  const seconds = /^\d+$/.test(text) ? Number(text) : Number.NaN
  if (!(seconds >= 1 && seconds <= 86_400)) throw usageError(`--timeout must be seconds from 1 to 86400, got '${text}'. Usage: ${usage}`)
  return seconds
}

/** `core jobs list|show|watch|retry|cancel`: provisioning jobs (docs/provisioning.md). */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "show", "watch", "retry", "cancel"], spec.usage)
  const usage = usageIn(spec, verb)
  if (verb === "list") {
    const { values, positionals } = parseOptions(rest, { ...platformOption, ...pageOptions, status: { type: "string" } }, usage)
    expectPositionals(positionals, [], usage)
    const limit = limitOf(values.limit, usage, 100)
    const status = oneOf(values.status, STATUSES, "--status", usage)
    return withSession(env, async (session) => {
      const query = defined({ limit, status, platformId: platformFilter(session, values.platform) })
      const api = session.client.provisioning.jobs
      const rows: Array<Job> = []
      let nextCursor: string | null = null
      if (values.all === true) for await (const job of api.all(query)) rows.push(job)
      else {
        const page = await api.list({ ...query, ...defined({ cursor: values.cursor }) })
        rows.push(...page.data)
        nextCursor = page.pagination.nextCursor === "" ? null : page.pagination.nextCursor // "" on the last page
      }
      ui.result({ data: rows, nextCursor }, () => {
        ui.list(rows, columns, { empty: "No jobs.", noun: "jobs" })
        if (nextCursor !== null) ui.line(`More jobs: run again with --cursor ${nextCursor}`)
      })
      return ExitCode.ok
    })
  }
  if (verb === "show") {
    const { positionals } = parseOptions(rest, {}, usage)
    const [jobId] = expectPositionals(positionals, ["job-id"], usage)
    return withSession(env, async (session) => {
      const job = await session.client.provisioning.jobs.get(jobId!)
      ui.result(job, () => {
        ui.line(`${job.type} ${job.jobId}: ${job.status}, ${percent(job.progress)}`)
        for (const [label, value] of [["Platform", job.platformId], ["Attempts", `${job.attempts} of ${job.maxAttempts}`], ["Run at", job.runAt],
          ["Started", job.startedAt], ["Finished", job.finishedAt], ["Error", job.error], ["Result", job.result === null ? null : JSON.stringify(job.result)]] as const) {
          if (value !== null) ui.line(`  ${`${label}:`.padEnd(11)}${value}`)
        }
        if (job.steps.length > 0) {
          ui.line()
          ui.table(job.steps, stepColumns)
        }
      })
      return ExitCode.ok
    })
  }
  if (verb === "watch") {
    const { values, positionals } = parseOptions(rest, { timeout: { type: "string" } }, usage)
    const [jobId] = expectPositionals(positionals, ["job-id"], usage)
    const timeout = timeoutOf(values.timeout, usage)
    return withSession(env, (session) => watch(ui, session, jobId!, timeout))
  }
  const { values, positionals } = parseOptions(rest, { reason: { type: "string" }, ...(verb === "cancel" ? yesOption : {}) }, usage)
  const [jobId] = expectPositionals(positionals, ["job-id"], usage)
  const input = defined({ reason: values.reason })
  if (verb === "cancel") await confirmDestructive(ui, (values as { yes?: boolean }).yes, `cancel job ${jobId}`)
  return withSession(env, async (session) => {
    const api = session.client.provisioning.jobs
    const answer = verb === "retry" ? await api.retry(jobId!, input) : await api.cancel(jobId!, input)
    ui.result(answer, () => ui.line(`Job ${answer.jobId} is ${answer.status}.`))
    return ExitCode.ok
  })
}
