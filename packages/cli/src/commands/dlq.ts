import type { Provisioning } from "@core/contracts"
import { expectPositionals, limitOf, parseOptions, verbOf } from "../args.js"
import { ExitCode } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./dlq.spec.js"
import { withSession } from "../session.js"
import type { Column } from "../ui.js"
import { defined, pageOptions } from "./resources.js"

type Entry = Provisioning.DeadLetterEntry

const columns: ReadonlyArray<Column<Entry>> = [
  { header: "ENTRY", value: (e) => e.entryId },
  { header: "JOB", value: (e) => e.jobId },
  { header: "TYPE", value: (e) => e.type },
  { header: "PLATFORM", value: (e) => e.platformId },
  { header: "ATTEMPTS", value: (e) => `${e.attempts}/${e.maxAttempts}` },
  { header: "FAILED", value: (e) => e.failedAt },
  { header: "REPLAYS", value: (e) => e.replayCount },
  { header: "ERROR", value: (e) => e.error }
]

/** `core dlq list|replay` (operators): the jobs that failed for good, and their replay as new jobs (docs/provisioning.md). */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "replay"], spec.usage)
  const usage = usageIn(spec, verb)
  if (verb === "list") {
    const { values, positionals } = parseOptions(rest, pageOptions, usage)
    expectPositionals(positionals, [], usage)
    const query = defined({ limit: limitOf(values.limit, usage, 100) })
    return withSession(env, async (session) => {
      const api = session.client.provisioning.dlq
      const rows: Array<Entry> = []
      let nextCursor: string | null = null
      if (values.all === true) for await (const entry of api.all(query)) rows.push(entry)
      else {
        const page = await api.list({ ...query, ...defined({ cursor: values.cursor }) })
        rows.push(...page.data)
        nextCursor = page.pagination.cursor === "" ? null : page.pagination.cursor
      }
      ui.result({ data: rows, nextCursor }, () => {
        ui.list(rows, columns, { empty: "No dead letters.", noun: "dead letters" })
        if (nextCursor !== null) ui.line(`More dead letters: run again with --cursor ${nextCursor}`)
      })
      return ExitCode.ok
    })
  }
  const { values, positionals } = parseOptions(rest, { reason: { type: "string" } }, usage)
  const [entryId] = expectPositionals(positionals, ["entry-id"], usage)
  return withSession(env, async (session) => {
    const answer = await session.client.provisioning.dlq.replay(entryId!, defined({ reason: values.reason }))
    ui.result(answer, () => ui.line(`Replayed ${answer.entryId} as job ${answer.jobId} (${answer.status}): core jobs watch ${answer.jobId}`))
    return ExitCode.ok
  })
}
