import type { Iam } from "@core/contracts"
import { expectPositionals, parseOptions, verbOf } from "../args.js"
import { ExitCode } from "../errors.js"
import type { CommandContext } from "../registry.js"
import { resolveOrganization, withSession } from "../session.js"

const USAGE = "core roles <list|set|delete> [options]"

/** `core roles list`, `core roles set <role> [permission…]`, `core roles delete <role>`. */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "set", "delete"], USAGE)
  const usage = {
    list: "core roles list [--org <id|slug>]",
    set: "core roles set <role> [permission…] [--org <id|slug>]",
    delete: "core roles delete <role> [--org <id|slug>]"
  }[verb]
  const { values, positionals } = parseOptions(rest, { org: { type: "string" } }, usage)
  if (verb !== "set" || positionals.length === 0) expectPositionals(positionals, verb === "list" ? [] : ["role"], usage)
  const [role, ...permissions] = positionals
  return withSession(env, async (session) => {
    const orgId = await resolveOrganization(session, env, values.org)
    if (verb === "list") {
      const { data } = await session.iam.roles.list(orgId)
      ui.result(data, () =>
        ui.table(data, [
          { header: "ROLE", value: (row) => row.role },
          { header: "PERMISSIONS", value: (row) => row.permissions.join(", ") },
          { header: "UPDATED", value: (row) => row.updatedAt }
        ])
      )
    } else if (verb === "set") {
      const mapping = await session.iam.roles.upsert({ orgId, role, permissions: permissions as Iam.UpsertRoleMappingRequest["permissions"] })
      ui.result(mapping, () => ui.line(`Role ${mapping.role}: ${mapping.permissions.length === 0 ? "no permissions" : mapping.permissions.join(", ")}.`))
    } else {
      await session.iam.roles.delete(orgId, role)
      ui.result({ orgId, role, deleted: true }, () => ui.line(`Deleted role mapping ${role}.`))
    }
    return ExitCode.ok
  })
}
