import type { Iam } from "@core/contracts"
import { confirmDestructive, expectPositionals, limitOf, parseOptions, verbOf } from "../args.js"
import { ExitCode, usageError } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./invitations.spec.js"
import { resolveOrganization, withSession } from "../session.js"

/** The invitations list's page size (the server's maximum). */
const PAGE = 100

const iso = (epochMs: number) => new Date(epochMs).toISOString()

/** `core invitations list`, `core invitations create <email> [--role r]`, `core invitations revoke <id>`. */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "create", "revoke"], spec.usage)
  const usage = usageIn(spec, verb)
  const { values, positionals } = parseOptions(
    rest,
    { org: { type: "string" }, role: { type: "string" }, limit: { type: "string" }, yes: { type: "boolean" } },
    usage
  )
  const misplaced = ([["role", "create"], ["limit", "list"], ["yes", "revoke"]] as const).find(([name, only]) => values[name] !== undefined && verb !== only)
  if (misplaced !== undefined) throw usageError(`Unknown option '--${misplaced[0]}'. Usage: ${usage}`, "UNKNOWN_OPTION")
  const [subject] = expectPositionals(positionals, verb === "list" ? [] : [verb === "create" ? "email" : "invitation id"], usage)
  const limit = limitOf(values.limit, usage)
  if (verb === "revoke") await confirmDestructive(ui, values.yes, `revoke invitation ${subject}`)
  return withSession(env, async (session) => {
    const orgId = await resolveOrganization(session, env, values.org)
    if (verb === "list") {
      const invitations: Array<Iam.Invitation> = []
      let more = false
      for await (const invitation of session.iam.invitations.all(orgId, { limit: Math.min(limit ?? PAGE, PAGE) })) {
        if (limit !== undefined && invitations.length === limit) {
          more = true
          break
        }
        invitations.push(invitation)
      }
      ui.result(invitations, () =>
        ui.list(
          invitations,
          [
            { header: "ID", value: (row) => row.id },
            { header: "EMAIL", value: (row) => row.email },
            { header: "ROLE", value: (row) => row.role },
            { header: "STATUS", value: (row) => row.status },
            { header: "EXPIRES", value: (row) => iso(row.expiresAt) }
          ],
          { empty: "No invitations in this organization.", noun: "invitations", more }
        )
      )
    } else if (verb === "create") {
      const role = values.role as "owner" | "admin" | "member" | undefined
      const invitation = await session.iam.invitations.create(orgId, { email: subject, ...(role === undefined ? {} : { role }) })
      ui.result(invitation, () => ui.line(`Invited ${invitation.email} as ${invitation.role} (${invitation.id}); expires ${iso(invitation.expiresAt)}.`))
    } else {
      const revoked = await session.iam.invitations.revoke(orgId, subject)
      ui.result(revoked, () => ui.line(`Revoked invitation ${revoked.id}.`))
    }
    return ExitCode.ok
  })
}
