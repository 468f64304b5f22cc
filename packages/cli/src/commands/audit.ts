import type { Iam } from "@core/contracts"
import { expectPositionals, parseOptions, verbOf } from "../args.js"
import { ExitCode, usageError } from "../errors.js"
import type { CommandContext } from "../registry.js"
import { withSession } from "../session.js"

const USAGE = "core audit list [--org <org id>] [--actor <user id|me>] [--action <action|prefix.*>] [--from <ISO>] [--to <ISO>] [--limit <n>] [--cursor <c>] [--all]"

/** `core audit list` with filters: one page (newest first, with the next cursor), or `--all` pages. */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { rest } = verbOf(argv, ["list"], USAGE)
  const { values, positionals } = parseOptions(
    rest,
    {
      org: { type: "string" },
      actor: { type: "string" },
      action: { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      limit: { type: "string" },
      cursor: { type: "string" },
      all: { type: "boolean" }
    },
    USAGE
  )
  expectPositionals(positionals, [], USAGE)
  const limit = values.limit === undefined ? undefined : Number(values.limit)
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 100)) throw usageError(`--limit must be an integer from 1 to 100. Usage: ${USAGE}`)
  const query = {
    ...(values.org === undefined ? {} : { organizationId: values.org }),
    ...(values.actor === undefined ? {} : { actor: values.actor }),
    ...(values.action === undefined ? {} : { action: values.action }),
    ...(values.from === undefined ? {} : { from: values.from }),
    ...(values.to === undefined ? {} : { to: values.to }),
    ...(limit === undefined ? {} : { limit })
  }
  return withSession(env, async ({ iam }) => {
    const entries: Array<Iam.AuditEntry> = []
    let nextCursor: string | null = null
    if (values.all === true) {
      for await (const entry of iam.audit.all(query)) entries.push(entry)
    } else {
      const page = await iam.audit.list({ ...query, ...(values.cursor === undefined ? {} : { cursor: values.cursor }) })
      entries.push(...page.data)
      nextCursor = page.nextCursor ?? null
    }
    ui.result({ data: entries, nextCursor }, () => {
      ui.table(entries, [
        { header: "TIME", value: (entry) => entry.occurredAt },
        { header: "ACTION", value: (entry) => entry.action },
        { header: "OUTCOME", value: (entry) => entry.outcome },
        { header: "ACTOR", value: (entry) => entry.actorId ?? entry.actorType },
        { header: "TARGET", value: (entry) => (entry.targetId === null ? null : `${entry.targetType ?? ""}:${entry.targetId}`) },
        { header: "REQUEST ID", value: (entry) => entry.requestId }
      ])
      if (nextCursor !== null) ui.line(`More entries: run again with --cursor ${nextCursor}`)
    })
    return ExitCode.ok
  })
}
