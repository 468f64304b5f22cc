import { expectPositionals, parseOptions, verbOf } from "../args.js"
import { ExitCode } from "../errors.js"
import type { CommandContext } from "../registry.js"
import { resolveOrganization, withSession } from "../session.js"

const USAGE = "core members <list|remove|role> [options]"
const org = { org: { type: "string" } } as const

/** `core members list`, `core members remove <member id or email>`, `core members role <member id> <role>`. */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "remove", "role"], USAGE)
  const usage = {
    list: "core members list [--org <id|slug>]",
    remove: "core members remove <member id or email> [--org <id|slug>]",
    role: "core members role <member id> <owner|admin|member> [--org <id|slug>]"
  }[verb]
  const { values, positionals } = parseOptions(rest, org, usage)
  const names = { list: [], remove: ["member"], role: ["member", "role"] }[verb]
  const [member, role] = expectPositionals(positionals, names, usage)
  return withSession(env, async (session) => {
    const organizationId = await resolveOrganization(session, env, values.org)
    if (verb === "list") {
      const { members, total } = await session.iam.members.list({ organizationId, limit: 1000 })
      ui.result({ members, total }, () =>
        ui.table(members, [
          { header: "MEMBER", value: (row) => row.id },
          { header: "USER", value: (row) => row.userId },
          { header: "EMAIL", value: (row) => row.user?.email },
          { header: "NAME", value: (row) => row.user?.name },
          { header: "ROLE", value: (row) => row.role },
          { header: "JOINED", value: (row) => row.createdAt }
        ])
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
