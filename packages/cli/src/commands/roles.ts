import type { Iam } from "@core/contracts"
import { confirmDestructive, expectPositionals, limitOf, parseOptions, verbOf } from "../args.js"
import { ExitCode, usageError } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./roles.spec.js"
import { resolveOrganization, withSession } from "../session.js"

/** `core roles list`, `core roles set <role> [permission…]`, `core roles delete <role>`. */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "set", "delete"], spec.usage)
  const usage = usageIn(spec, verb)
  const { values, positionals } = parseOptions(rest, { org: { type: "string" }, limit: { type: "string" }, yes: { type: "boolean" } }, usage)
  const misplaced = ([["limit", "list"], ["yes", "delete"]] as const).find(([name, only]) => values[name] !== undefined && verb !== only)
  if (misplaced !== undefined) throw usageError(`Unknown option '--${misplaced[0]}'. Usage: ${usage}`, "UNKNOWN_OPTION")
  if (verb !== "set" || positionals.length === 0) expectPositionals(positionals, verb === "list" ? [] : ["role"], usage)
  const [role, ...permissions] = positionals
  const limit = limitOf(values.limit, usage)
  if (verb === "delete") await confirmDestructive(ui, values.yes, `delete role mapping ${role}`)
  return withSession(env, async (session) => {
    const orgId = await resolveOrganization(session, env, values.org)
    if (verb === "list") {
      const { data } = await session.iam.roles.list(orgId)
      const shown = data.slice(0, limit)
      ui.result(shown, () =>
        ui.list(
          shown,
          [
            { header: "ROLE", value: (row) => row.role },
            { header: "PERMISSIONS", value: (row) => row.permissions.join(", ") },
            { header: "UPDATED", value: (row) => row.updatedAt }
          ],
          { empty: "No role mappings in this organization.", noun: "role mappings", total: data.length }
        )
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
