import type { Iam } from "@core/contracts"
import { expectPositionals, parseOptions, verbOf } from "../args.js"
import { ExitCode, usageError } from "../errors.js"
import type { CommandContext } from "../registry.js"
import { resolveOrganization, withSession } from "../session.js"

const USAGE = "core invitations <list|create|revoke> [options]"

const iso = (epochMs: number) => new Date(epochMs).toISOString()

/** `core invitations list`, `core invitations create <email> [--role r]`, `core invitations revoke <id>`. */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "create", "revoke"], USAGE)
  const usage = {
    list: "core invitations list [--org <id|slug>]",
    create: "core invitations create <email> [--role owner|admin|member] [--org <id|slug>]",
    revoke: "core invitations revoke <invitation id> [--org <id|slug>]"
  }[verb]
  const { values, positionals } = parseOptions(rest, { org: { type: "string" }, role: { type: "string" } }, usage)
  if (values.role !== undefined && verb !== "create") throw usageError(`Unknown option '--role'. Usage: ${usage}`, "UNKNOWN_OPTION")
  const [subject] = expectPositionals(positionals, verb === "list" ? [] : [verb === "create" ? "email" : "invitation id"], usage)
  return withSession(env, async (session) => {
    const orgId = await resolveOrganization(session, env, values.org)
    if (verb === "list") {
      const invitations: Array<Iam.Invitation> = []
      for await (const invitation of session.iam.invitations.all(orgId, { limit: 100 })) invitations.push(invitation)
      ui.result(invitations, () =>
        ui.table(invitations, [
          { header: "ID", value: (row) => row.id },
          { header: "EMAIL", value: (row) => row.email },
          { header: "ROLE", value: (row) => row.role },
          { header: "STATUS", value: (row) => row.status },
          { header: "EXPIRES", value: (row) => iso(row.expiresAt) }
        ])
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
