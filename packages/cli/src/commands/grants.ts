import type { Iam } from "@core/contracts"
import { confirmDestructive, expectPositionals, limitOf, parseOptions, verbOf, yesOption } from "../args.js"
import { ExitCode, usageError } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./grants.spec.js"
import { currentUserId, resolveOrganization, withSession } from "../session.js"

/** Epoch seconds from `--expires`: a number of seconds, or an ISO 8601 time. */
const expirySeconds = (value: string, usage: string): number => {
  const seconds = /^\d+$/.test(value) ? Number(value) : Math.floor(Date.parse(value) / 1000)
  if (!Number.isFinite(seconds) || seconds <= 0) throw usageError(`--expires must be epoch seconds or an ISO 8601 time, got '${value}'. Usage: ${usage}`)
  return seconds
}

/** `core grants list [--user u]`, `core grants create --user u --permission p [--deny] [--expires t]`, `core grants delete <id>`. */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "create", "delete"], spec.usage)
  const usage = usageIn(spec, verb)
  if (verb === "delete") {
    const { values, positionals } = parseOptions(rest, yesOption, usage)
    const [id] = expectPositionals(positionals, ["grant id"], usage)
    await confirmDestructive(ui, values.yes, `delete grant ${id}`)
    return withSession(env, async ({ iam }) => {
      await iam.grants.delete(id)
      ui.result({ id, deleted: true }, () => ui.line(`Deleted grant ${id}.`))
      return ExitCode.ok
    })
  }
  if (verb === "list") {
    const { values, positionals } = parseOptions(rest, { org: { type: "string" }, user: { type: "string" }, limit: { type: "string" } }, usage)
    expectPositionals(positionals, [], usage)
    const limit = limitOf(values.limit, usage)
    return withSession(env, async (session) => {
      const orgId = await resolveOrganization(session, env, values.org)
      const { data } = await session.iam.grants.list({ orgId, ...(values.user === undefined ? {} : { userId: values.user }) })
      const shown = data.slice(0, limit)
      ui.result(shown, () =>
        ui.list(shown, [
          { header: "ID", value: (grant) => grant.id },
          { header: "USER", value: (grant) => grant.userId },
          { header: "PERMISSION", value: (grant) => grant.permission },
          { header: "EFFECT", value: (grant) => (grant.granted ? "grant" : "deny") },
          { header: "EXPIRES", value: (grant) => (grant.expiresAt === null ? null : new Date(grant.expiresAt * 1000).toISOString()) },
          { header: "ACTIVE", value: (grant) => (grant.active ? "yes" : "no") }
        ], { empty: `No grants ${values.user === undefined ? "in this organization" : `for ${values.user}`}.`, noun: "grants", total: data.length })
      )
      return ExitCode.ok
    })
  }
  const { values, positionals } = parseOptions(
    rest,
    { org: { type: "string" }, user: { type: "string" }, permission: { type: "string" }, deny: { type: "boolean" }, expires: { type: "string" } },
    usage
  )
  expectPositionals(positionals, [], usage)
  if (values.user === undefined || values.permission === undefined) throw usageError(`--user and --permission are required. Usage: ${usage}`)
  const expiresAt = values.expires === undefined ? undefined : expirySeconds(values.expires, usage)
  return withSession(env, async (session) => {
    const grant = await session.iam.grants.create({
      orgId: await resolveOrganization(session, env, values.org),
      userId: values.user!,
      permission: values.permission! as Iam.CreateGrantRequest["permission"],
      granted: values.deny !== true,
      grantedBy: await currentUserId(session),
      ...(expiresAt === undefined ? {} : { expiresAt })
    })
    ui.result(grant, () => ui.line(`${grant.granted ? "Granted" : "Denied"} ${grant.permission} to ${grant.userId} (${grant.id}).`))
    return ExitCode.ok
  })
}
