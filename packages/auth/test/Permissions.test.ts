import { CONCRETE_PERMISSIONS, DEFAULT_ROLE_PERMISSIONS } from "@core/contracts"
import { Forbidden, NotFound } from "@core/kernel"
import { describe, expect, it, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Exit, TestClock } from "effect"
import { Access } from "../src/authorization/Access.js"
import { effective } from "../src/authorization/Permissions.js"
import { addMember, seedOperator, seedOrg, seedTenant, seedUser, service, serviceLayer } from "./AuthorizationSupport.js"

const sources = (mapped: Array<string>, grants: Array<[string, boolean, number | null]> = []) => ({
  role: "member",
  mapped,
  grants: grants.map(([permission, granted, expiresAt]) => ({ permission, granted, expiresAt }))
})

describe("effective permissions", () => {
  it("is the mapping, sorted, without duplicates", () => {
    expect(effective(sources(["org:read", "billing:read", "org:read"]), 0)).toEqual(["billing:read", "org:read"])
  })

  it("adds grants and removes denials; a denial wins over a grant of the same permission", () => {
    const result = effective(
      sources(["org:read", "members:read"], [["billing:read", true, null], ["members:read", false, null], [
        "audit:read",
        true,
        null
      ], ["audit:read", false, null]]),
      0
    )
    expect(result).toEqual(["billing:read", "org:read"])
  })

  it("spells out a wildcard a denial touches: * minus org:delete", () => {
    const result = effective(sources(["*"], [["org:delete", false, null]]), 0)
    expect(result).toEqual(CONCRETE_PERMISSIONS.filter((p) => p !== "org:delete").sort())
    expect(result).not.toContain("*")
  })

  it("a wildcard denial removes a whole area, also from *", () => {
    const result = effective(sources(["*"], [["billing:*", false, null]]), 0)
    expect(result.some((p) => p.startsWith("billing:"))).toBe(false)
    expect(result).toContain("org:delete")
    expect(effective(sources(["stacks:*"], [["stacks:manage", false, null]]), 0)).toEqual(["stacks:read"])
    expect(effective(sources(["*", "org:read"], [["*", false, null]]), 0)).toEqual([])
  })

  it("keeps * as it is when no denial touches it", () => {
    expect(effective(sources(["*"], [["billing:read", true, null]]), 0)).toEqual(["*", "billing:read"])
  })

  it("drops grants and denials whose expiresAt (epoch seconds) is not after now", () => {
    const s = sources(["org:read"], [["billing:read", true, 100], ["org:read", false, 200]])
    expect(effective(s, 99)).toEqual(["billing:read"])
    expect(effective(s, 100)).toEqual([])
    expect(effective(s, 199)).toEqual([])
    expect(effective(s, 200)).toEqual(["org:read"])
  })
})

layer(serviceLayer(), { timeout: "60 seconds" })("Access", (it) => {
  it.effect("effective permissions follow the default mappings; a non-member has none", () =>
    Effect.gen(function*() {
      const access = yield* Access
      const { org, owner, admin, member } = yield* seedTenant
      const stranger = yield* seedUser("stranger")
      expect(yield* access.effectivePermissions(owner.id, org.id)).toEqual(["*"])
      expect(yield* access.effectivePermissions(admin.id, org.id)).toEqual([...DEFAULT_ROLE_PERMISSIONS.admin].sort())
      expect(yield* access.effectivePermissions(member.id, org.id)).toEqual([...DEFAULT_ROLE_PERMISSIONS.member].sort())
      expect(yield* access.effectivePermissions(stranger.id, org.id)).toEqual([])
    }))

  it.effect("requirePermission: service and operators pass, non-members get NotFound, members without it Forbidden", () =>
    Effect.gen(function*() {
      const access = yield* Access
      const { org, admin, member } = yield* seedTenant
      const other = yield* seedTenant
      const operator = yield* seedOperator
      yield* access.requirePermission(service, org.id, "org:delete")
      yield* access.requirePermission(operator.caller, org.id, "org:delete")
      yield* access.requirePermission(admin.caller, org.id, "members:manage")
      expect(yield* Effect.exit(access.requirePermission(other.admin.caller, org.id, "members:read"))).toEqual(
        Exit.fail(new NotFound({ message: "Organization not found" }))
      )
      expect(yield* Effect.exit(access.requirePermission(member.caller, org.id, "members:manage"))).toEqual(
        Exit.fail(new Forbidden({ message: "Missing permission members:manage: ask an owner or admin of the organization to grant it (core grants create --permission members:manage)" }))
      )
      expect(yield* Effect.exit(access.requirePermission(admin.caller, org.id, "org:delete"))).toEqual(
        Exit.fail(new Forbidden({ message: "Missing permission org:delete: ask an owner or admin of the organization to grant it (core grants create --permission org:delete)" }))
      )
    }))

  it.effect("isOperator and requireOperatorOrService", () =>
    Effect.gen(function*() {
      const access = yield* Access
      const { owner } = yield* seedTenant
      const operator = yield* seedOperator
      expect(yield* access.isOperator(operator.id)).toBe(true)
      expect(yield* access.isOperator(owner.id)).toBe(false)
      yield* access.requireOperatorOrService(service)
      yield* access.requireOperatorOrService(operator.caller)
      expect(Exit.isFailure(yield* Effect.exit(access.requireOperatorOrService(owner.caller)))).toBe(true)
    }))

  it.effect("a denial wins over the owner's *", () =>
    Effect.gen(function*() {
      const access = yield* Access
      const sql = yield* SqlClient.SqlClient
      const { org, owner } = yield* seedTenant
      yield* sql`INSERT INTO iam.grants (id, organization_id, user_id, permission, granted, granted_by)
        VALUES ('grt_deny_owner', ${org.id}, ${owner.id}, 'org:delete', false, ${owner.id})`
      yield* access.invalidate(org.id, owner.id)
      expect(Exit.isFailure(yield* Effect.exit(access.requirePermission(owner.caller, org.id, "org:delete")))).toBe(true)
      yield* access.requirePermission(owner.caller, org.id, "billing:manage")
    }))

  it.effect("answers from the cache until invalidated, and for at most 30 seconds", () =>
    Effect.gen(function*() {
      const access = yield* Access
      const sql = yield* SqlClient.SqlClient
      const { org, member } = yield* seedTenant
      expect(yield* access.effectivePermissions(member.id, org.id)).not.toContain("billing:manage")
      yield* sql`INSERT INTO iam.grants (id, organization_id, user_id, permission, granted, granted_by)
        VALUES ('grt_cache_1', ${org.id}, ${member.id}, 'billing:manage', true, 'x')`
      expect(yield* access.effectivePermissions(member.id, org.id)).not.toContain("billing:manage")
      yield* access.invalidate(org.id)
      expect(yield* access.effectivePermissions(member.id, org.id)).toContain("billing:manage")
      yield* sql`DELETE FROM iam.grants WHERE id = 'grt_cache_1'`
      expect(yield* access.effectivePermissions(member.id, org.id)).toContain("billing:manage")
      yield* TestClock.adjust("31 seconds")
      expect(yield* access.effectivePermissions(member.id, org.id)).not.toContain("billing:manage")
    }))

  it.effect("a cached grant lapses at its expiry without invalidation", () =>
    Effect.gen(function*() {
      const access = yield* Access
      const sql = yield* SqlClient.SqlClient
      const { org, member } = yield* seedTenant
      const now = Math.floor((yield* TestClock.currentTimeMillis) / 1000)
      yield* sql`INSERT INTO iam.grants (id, organization_id, user_id, permission, granted, granted_by, expires_at)
        VALUES ('grt_lapse', ${org.id}, ${member.id}, 'billing:manage', true, 'x', ${now + 10})`
      yield* access.invalidate(org.id, member.id)
      yield* access.requirePermission(member.caller, org.id, "billing:manage")
      yield* TestClock.adjust("9 seconds")
      yield* access.requirePermission(member.caller, org.id, "billing:manage")
      yield* TestClock.adjust("1 second")
      expect(Exit.isFailure(yield* Effect.exit(access.requirePermission(member.caller, org.id, "billing:manage")))).toBe(
        true
      )
    }))

  it.effect("a member who leaves loses everything once membership changes are signalled", () =>
    Effect.gen(function*() {
      const access = yield* Access
      const sql = yield* SqlClient.SqlClient
      const org = yield* seedOrg()
      const user = yield* seedUser()
      yield* addMember(org.id, user.id, "admin")
      yield* access.requirePermission(user.caller, org.id, "members:manage")
      yield* sql`DELETE FROM iam.members WHERE user_id = ${user.id}`
      yield* access.invalidate(org.id, user.id)
      expect(yield* Effect.exit(access.requirePermission(user.caller, org.id, "members:manage"))).toEqual(
        Exit.fail(new NotFound({ message: "Organization not found" }))
      )
    }))
})
