import type { Registry } from "@core/contracts"
import { confirmDestructive, expectPositionals, limitOf, parseOptions, verbOf, yesOption } from "../args.js"
import { ExitCode, usageError } from "../errors.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./platforms.spec.js"
import { withSession } from "../session.js"

/** The registry's largest page. */
const MAX_PAGE = 100
const TIERS = ["free", "starter", "growth", "scale"] as const
const STATUSES = ["active", "suspended", "cancelled", "deleted"] as const

const oneOf = <T extends string>(value: string | undefined, allowed: ReadonlyArray<T>, flag: string, usage: string): T | undefined => {
  if (value === undefined) return undefined
  if (!(allowed as ReadonlyArray<string>).includes(value)) throw usageError(`${flag} must be one of ${allowed.join(", ")}. Usage: ${usage}`)
  return value as T
}

const columns = [
  { header: "ID", value: (platform: Registry.PlatformRecord) => platform.id },
  { header: "SLUG", value: (platform: Registry.PlatformRecord) => platform.slug },
  { header: "NAME", value: (platform: Registry.PlatformRecord) => platform.name },
  { header: "STATUS", value: (platform: Registry.PlatformRecord) => platform.status },
  { header: "TIER", value: (platform: Registry.PlatformRecord) => platform.tier }
]

/** The lifecycle verbs: the method of `client.registry.platforms`, what it does, and whether it asks first. */
const ACTIONS = {
  suspend: { method: "suspend", done: "Suspended", destructive: false },
  restore: { method: "restore", done: "Restored", destructive: false },
  cancel: { method: "cancel", done: "Cancelled", destructive: true },
  delete: { method: "hardDelete", done: "Deleted", destructive: true }
} as const

/** `core platforms list|show|create|suspend|restore|cancel|delete`: the platform registry (docs/registry.md). */
export const run = async ({ argv, ui, env }: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(argv, ["list", "show", "create", "suspend", "restore", "cancel", "delete"], spec.usage)
  const usage = usageIn(spec, verb)
  if (verb === "list") {
    const options = { limit: { type: "string" }, status: { type: "string" }, tier: { type: "string" }, cursor: { type: "string" }, all: { type: "boolean" } } as const
    const { values, positionals } = parseOptions(rest, options, usage)
    expectPositionals(positionals, [], usage)
    const limit = limitOf(values.limit, usage, MAX_PAGE)
    const status = oneOf(values.status, STATUSES, "--status", usage)
    const tier = oneOf(values.tier, TIERS, "--tier", usage)
    const query = {
      ...(limit === undefined ? {} : { limit }),
      ...(status === undefined ? {} : { status }),
      ...(tier === undefined ? {} : { tier })
    }
    return withSession(env, async ({ client }) => {
      const platforms: Array<Registry.PlatformRecord> = []
      let nextCursor: string | null = null
      let total: number | undefined
      if (values.all === true) {
        for await (const platform of client.registry.platforms.all(query)) platforms.push(platform)
        total = platforms.length
      } else {
        const page = await client.registry.platforms.list({ ...query, ...(values.cursor === undefined ? {} : { cursor: values.cursor }) })
        platforms.push(...page.data)
        nextCursor = page.pagination.nextCursor
        total = page.pagination.total
      }
      ui.result({ data: platforms, nextCursor }, () => {
        ui.list(platforms, columns, { empty: "No platforms.", noun: "platforms", total })
        if (nextCursor !== null) ui.line(`More platforms: run again with --cursor ${nextCursor}`)
      })
      return ExitCode.ok
    })
  }
  if (verb === "show") {
    const { positionals } = parseOptions(rest, {}, usage)
    const [platformId] = expectPositionals(positionals, ["platform-id"], usage)
    return withSession(env, async ({ client }) => {
      const platform = await client.registry.platforms.get(platformId)
      ui.result(platform, () => {
        ui.line(`${platform.name} (${platform.slug})`)
        ui.line(`  ID:           ${platform.id}`)
        ui.line(`  Status:       ${platform.status}`)
        ui.line(`  Tier:         ${platform.tier}`)
        ui.line(`  Organization: ${platform.organizationId ?? "-"}`)
        ui.line(`  Created:      ${platform.createdAt}`)
        if (platform.suspendedAt !== null) ui.line(`  Suspended:    ${platform.suspendedAt} (${platform.suspensionReason ?? "no reason"})`)
        if (platform.cancelledAt !== null) ui.line(`  Cancelled:    ${platform.cancelledAt} (${platform.cancellationReason ?? "no reason"})`)
      })
      return ExitCode.ok
    })
  }
  if (verb === "create") {
    const { values, positionals } = parseOptions(rest, { name: { type: "string" }, tier: { type: "string" }, owner: { type: "string" } }, usage)
    const [slug] = expectPositionals(positionals, ["slug"], usage)
    if (values.name === undefined) throw usageError(`Missing --name. Usage: ${usage}`)
    const tier = oneOf(values.tier, TIERS, "--tier", usage)
    const body: Registry.CreatePlatformRequest = {
      name: values.name,
      slug,
      ...(tier === undefined ? {} : { tier }),
      ...(values.owner === undefined ? {} : { ownerUserId: values.owner })
    }
    return withSession(env, async ({ client }) => {
      const platform = await client.registry.platforms.create(body)
      ui.result(platform, () => ui.line(`Created platform ${platform.slug} (${platform.id}).`))
      return ExitCode.ok
    })
  }
  const action = ACTIONS[verb]
  const { values, positionals } = parseOptions(rest, { ...yesOption, reason: { type: "string" } }, usage)
  const [platformId] = expectPositionals(positionals, ["platform-id"], usage)
  if (action.destructive) await confirmDestructive(ui, values.yes, `${verb} the platform ${platformId}`)
  const input = values.reason === undefined ? {} : { reason: values.reason }
  return withSession(env, async ({ client }) => {
    const platform = await client.registry.platforms[action.method](platformId, input)
    ui.result(platform, () => ui.line(`${action.done} platform ${platform.slug} (${platform.id}): now ${platform.status}.`))
    return ExitCode.ok
  })
}
