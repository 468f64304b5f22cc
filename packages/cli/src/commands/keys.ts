import type { Iam } from "@core/contracts"
import { confirmDestructive, expectPositionals, limitOf, parseOptions, verbOf, yesOption } from "../args.js"
import { ExitCode } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./keys.spec.js"
import { resolveOrganization, withSession } from "../session.js"

/** What the created key holds, saying when it is the default (decision 0595). */
const permissionsLine = (permissions: ReadonlyArray<string>, defaulted: boolean): string =>
  defaulted
    ? `Permissions (the default: every read permission you hold; pass --permission to choose): ${permissions.join(", ") || "none"}`
    : `Permissions: ${permissions.join(", ") || "none"}`

/** `core keys list`, `core keys create [--name n] [--permission p]… [--expires iso]`, `core keys revoke <id>`. */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "create", "revoke"], spec.usage)
  const usage = usageIn(spec, verb)
  if (verb === "revoke") {
    const { values, positionals } = parseOptions(rest, yesOption, usage)
    const [id] = expectPositionals(positionals, ["key id"], usage)
    await confirmDestructive(ui, values.yes, `revoke API key ${id}`)
    return withSession(env, async ({ iam }) => {
      await iam.apiKeys.revoke(id)
      ui.result({ id, revoked: true }, () => ui.line(`Revoked API key ${id}.`))
      return ExitCode.ok
    })
  }
  if (verb === "list") {
    const { values, positionals } = parseOptions(rest, { org: { type: "string" }, limit: { type: "string" } }, usage)
    expectPositionals(positionals, [], usage)
    const limit = limitOf(values.limit, usage)
    return withSession(env, async (session) => {
      const { data } = await session.iam.apiKeys.list(await resolveOrganization(session, env, values.org))
      const shown = data.slice(0, limit)
      ui.result(shown, () =>
        ui.list(
          shown,
          [
            { header: "ID", value: (key) => key.id },
            { header: "NAME", value: (key) => key.name },
            { header: "START", value: (key) => `${key.start}…` },
            { header: "PERMISSIONS", value: (key) => key.permissions.join(",") },
            { header: "EXPIRES", value: (key) => key.expiresAt },
            { header: "LAST USED", value: (key) => key.lastUsedAt },
            { header: "REVOKED", value: (key) => key.revokedAt }
          ],
          { empty: "No API keys in this organization.", noun: "API keys", total: data.length }
        )
      )
      return ExitCode.ok
    })
  }
  const { values, positionals } = parseOptions(
    rest,
    { org: { type: "string" }, name: { type: "string" }, permission: { type: "string", multiple: true }, expires: { type: "string" } },
    usage
  )
  expectPositionals(positionals, [], usage)
  return withSession(env, async (session) => {
    const created = await session.iam.apiKeys.create({
      organizationId: await resolveOrganization(session, env, values.org),
      ...(values.name === undefined ? {} : { name: values.name }),
      ...(values.permission === undefined ? {} : { permissions: values.permission as Iam.CreateApiKeyRequest["permissions"] }),
      ...(values.expires === undefined ? {} : { expiresAt: values.expires })
    })
    ui.error("Copy the key now: it is shown this once and cannot be retrieved again.")
    ui.result(created, () => {
      ui.line(`Created API key ${created.id}${created.name === null ? "" : ` (${created.name})`} for platform ${created.platformId}:`)
      ui.line()
      ui.line(`  ${created.key}`)
      ui.line()
      ui.line(permissionsLine(created.permissions, values.permission === undefined))
    })
    return ExitCode.ok
  })
}
