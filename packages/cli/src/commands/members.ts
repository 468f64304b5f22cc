import { confirmDestructive, expectPositionals, limitOf, parseOptions, verbOf } from "../args.js"
import { ExitCode } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./members.spec.js"
import { resolveOrganization, withSession } from "../session.js"

/** The most members one `members list` asks for (the server's maximum page). */
const ALL_MEMBERS = 1000

/** `core members list`, `core members remove <member id or email>`, `core members role <member id> <role>`. */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "remove", "role"], spec.usage)
  const usage = usageIn(spec, verb)
  const { values, positionals } = parseOptions(
    rest,
    { org: { type: "string" }, ...(verb === "list" ? { limit: { type: "string" } } : {}), ...(verb === "remove" ? { yes: { type: "boolean" } } : {}) },
    usage
  )
  const names = { list: [], remove: ["member"], role: ["member", "role"] }[verb]
  const [member, role] = expectPositionals(positionals, names, usage)
  const limit = limitOf(values.limit as string | undefined, usage)
  if (verb === "remove") await confirmDestructive(ui, values.yes as boolean | undefined, `remove member ${member}`)
  return withSession(env, async (session) => {
    const organizationId = await resolveOrganization(session, env, values.org as string | undefined)
    if (verb === "list") {
      const { members, total } = await session.iam.members.list({ organizationId, limit: Math.min(limit ?? ALL_MEMBERS, ALL_MEMBERS) })
      ui.result({ members, total }, () =>
        ui.list(
          members,
          [
            { header: "MEMBER", value: (row) => row.id },
            { header: "USER", value: (row) => row.userId },
            { header: "EMAIL", value: (row) => row.user?.email },
            { header: "NAME", value: (row) => row.user?.name },
            { header: "ROLE", value: (row) => row.role },
            { header: "JOINED", value: (row) => row.createdAt }
          ],
          { empty: "No members in this organization.", noun: "members", total }
        )
      )
    } else if (verb === "remove") {
      const removed = await session.iam.members.remove({ memberIdOrEmail: member, organizationId })
      const who = removed.member.user?.email ?? (member.includes("@") ? member : removed.member.userId)
      ui.result(removed, () => ui.line(`Removed ${who} from the organization.`))
    } else {
      const updated = await session.iam.members.updateRole({ memberId: member, role: role as "owner" | "admin" | "member", organizationId })
      ui.result(updated, () => ui.line(`${updated.user?.email ?? updated.userId} is now ${updated.role}.`))
    }
    return ExitCode.ok
  })
}
