import type { Iam } from "@core/contracts"
import { expectPositionals, limitOf, parseOptions, verbOf } from "../args.js"
import { ExitCode } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./audit.spec.js"
import { organizationIdOf, withSession } from "../session.js"

/** The audit list's largest page. */
const MAX_PAGE = 100

/**
 * `core audit list` with filters: one page (newest first, with the next cursor), or `--all` pages.
 * `--org` (or `CORE_ORG`) takes an id or a slug like every other command; without either, the
 * caller's own entries (what the service answers a user without `organizationId`).
 */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const usage = usageIn(spec, "list")
  const { rest } = verbOf(argv, ["list"], spec.usage)
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
    usage
  )
  expectPositionals(positionals, [], usage)
  const limit = limitOf(values.limit, usage, MAX_PAGE)
  const org = values.org ?? (env.CORE_ORG || undefined)
  const filters = {
    ...(values.actor === undefined ? {} : { actor: values.actor }),
    ...(values.action === undefined ? {} : { action: values.action }),
    ...(values.from === undefined ? {} : { from: values.from }),
    ...(values.to === undefined ? {} : { to: values.to }),
    ...(limit === undefined ? {} : { limit })
  }
  return withSession(env, async (session) => {
    const { iam } = session
    const query = { ...(org === undefined ? {} : { organizationId: await organizationIdOf(session, org) }), ...filters }
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
      if (entries.length === 0) return ui.line("No audit entries.")
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
