import type { ApiKeyCaller } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Exit } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ApiKeys } from "../src/authorization/ApiKeys.js"
import { auditRows, envelope, type Harness, makeHarness, seedTenant, STATIC_KEY } from "./AuthorizationSupport.js"

/**
 * Issue 27 (security): a key with `apikeys:manage` created keys recorded as `"createdBy":"service"`,
 * and revoking it left them working. A key's keys record it, are revoked with it at any depth in
 * one transaction, each audited, and expire no later than it (decision 0560).
 */
interface Created {
  readonly id: string
  readonly key: string
  readonly createdBy: string
  readonly expiresAt: string | null
}

let h: Harness
let tenant: Effect.Effect.Success<typeof seedTenant>

beforeAll(async () => {
  h = await makeHarness()
  tenant = await h.run(seedTenant)
})
afterAll(() => h.dispose())

const MANAGE = ["apikeys:manage", "apikeys:read"]

/** Create a key as a user (`token`) or as a key (`apiKey`). */
const create = (who: { token: string } | { apiKey: string }, json: Record<string, unknown> = {}) =>
  h.fetch("/api/core/apikeys", { method: "POST", ...who, json: { organizationId: tenant.org.id, permissions: MANAGE, ...json } })

const created = async (who: { token: string } | { apiKey: string }, json: Record<string, unknown> = {}): Promise<Created> => {
  const response = await create(who, json)
  expect(response.status, await response.clone().text()).toBe(201)
  return (await response.json()) as Created
}

/** What the gateway asks of identity for a presented key. */
const validity = async (key: string) =>
  (await h.fetch("/api/core/apikey/validate", { method: "POST", token: STATIC_KEY, json: { key } })).status

const revoke = (id: string, who: { token: string } | { apiKey: string } = { token: tenant.owner.token }) =>
  h.fetch(`/api/core/apikeys/${id}`, { method: "DELETE", ...who })

const rows = <A extends object>(statement: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.orDie(statement(sql))))

describe("keys created by a key", () => {
  it("record the creating key, and are revoked with it at any depth, each audited, in one answer", async () => {
    const root = await created({ token: tenant.owner.token }, { name: "root" })
    expect(root.createdBy).toBe(tenant.owner.id)
    const child = await created({ apiKey: root.key }, { name: "child" })
    const grandchild = await created({ apiKey: child.key }, { name: "grandchild" })
    const sibling = await created({ apiKey: root.key }, { name: "sibling" })
    expect([child.createdBy, grandchild.createdBy, sibling.createdBy]).toEqual([root.id, child.id, root.id])
    expect(await rows((sql) => sql`SELECT id, parent_key_id AS "parentKeyId" FROM iam.api_keys
      WHERE id IN (${root.id}, ${child.id}, ${grandchild.id}, ${sibling.id}) ORDER BY id`)).toEqual([
      { id: root.id, parentKeyId: null },
      { id: child.id, parentKeyId: root.id },
      { id: grandchild.id, parentKeyId: child.id },
      { id: sibling.id, parentKeyId: root.id }
    ])
    const creations = (await h.run(auditRows("apikey.create"))).filter((row) => row.targetId === grandchild.id)
    expect(creations).toMatchObject([{ actorId: child.id, actorType: "apikey", metadata: { parentKeyId: child.id } }])
    for (const key of [root, child, grandchild, sibling]) expect(await validity(key.key), key.id).toBe(200)

    const response = await revoke(root.id)
    expect([response.status, response.headers.get("x-core-invalidate")]).toEqual([204, `key=${root.id}, platform=${tenant.org.platformId}`])
    for (const key of [root, child, grandchild, sibling]) expect(await validity(key.key), key.id).toBe(401)
    const revokedAt = await rows<{ at: unknown }>((sql) => sql`SELECT DISTINCT revoked_at AS at FROM iam.api_keys
      WHERE id IN (${root.id}, ${child.id}, ${grandchild.id}, ${sibling.id})`)
    expect(revokedAt).toHaveLength(1)
    const tree = [root.id, child.id, grandchild.id, sibling.id]
    const entries = (await h.run(auditRows("apikey.revoke"))).filter((row) => tree.includes(row.targetId!))
    const summary = entries.map((row) => [row.targetId, row.actorId, (row.metadata as { revokedWith?: string }).revokedWith])
    expect(summary[0]).toEqual([root.id, tenant.owner.id, undefined])
    expect(summary.slice(1).sort()).toEqual([child.id, grandchild.id, sibling.id].sort().map((id) => [id, tenant.owner.id, root.id]))
    // Revoking it again succeeds and audits nothing more.
    expect((await revoke(root.id)).status).toBe(204)
    expect((await h.run(auditRows("apikey.revoke"))).filter((row) => tree.includes(row.targetId!))).toHaveLength(4)
  })

  it("revokes a key's own subtree only: its creator and its siblings keep working", async () => {
    const root = await created({ token: tenant.owner.token })
    const middle = await created({ apiKey: root.key })
    const leaf = await created({ apiKey: middle.key })
    const sibling = await created({ apiKey: root.key })
    const response = await revoke(middle.id, { apiKey: root.key })
    expect([response.status, response.headers.get("x-core-invalidate")]).toEqual([204, `key=${middle.id}, platform=${tenant.org.platformId}`])
    expect([await validity(root.key), await validity(middle.key), await validity(leaf.key), await validity(sibling.key)]).toEqual([200, 401, 401, 200])
    const alone = await created({ token: tenant.owner.token })
    expect((await revoke(alone.id)).headers.get("x-core-invalidate")).toBe(`key=${alone.id}`)
  })

  it("refuses a creation by a key revoked or expired meanwhile (what a gateway's cache may still pass) with 401", async () => {
    const parent = await created({ token: tenant.owner.token })
    const caller: ApiKeyCaller = { kind: "apikey", keyId: parent.id, organizationId: tenant.org.id, platformId: tenant.org.platformId!, permissions: MANAGE }
    const attempt = () => h.run(Effect.exit(Effect.flatMap(ApiKeys, (keys) => keys.create(caller, { organizationId: tenant.org.id }))))
    expect(Exit.isSuccess(await attempt())).toBe(true)
    await rows((sql) => sql`UPDATE iam.api_keys SET expires_at = now() - interval '1 second' WHERE id = ${parent.id} RETURNING id`)
    expect(await attempt()).toEqual(Exit.fail(expect.objectContaining({ _tag: "Unauthorized", message: "Invalid API key" })))
    await rows((sql) => sql`UPDATE iam.api_keys SET expires_at = NULL, revoked_at = now() WHERE id = ${parent.id} RETURNING id`)
    expect(await attempt()).toEqual(Exit.fail(expect.objectContaining({ _tag: "Unauthorized", message: "Invalid API key" })))
    expect(await rows((sql) => sql`SELECT id FROM iam.api_keys WHERE parent_key_id = ${parent.id} AND revoked_at IS NULL`)).toHaveLength(1)
    const response = await create({ apiKey: parent.key })
    expect([response.status, await response.json()]).toEqual([401, envelope("UNAUTHORIZED", "Invalid API key")])
  })

  it("expire no later than the key that created them", async () => {
    const parent = await created({ token: tenant.owner.token }, { expiresAt: "2990-01-01T00:00:00.000Z" })
    expect((await created({ apiKey: parent.key })).expiresAt).toBe("2990-01-01T00:00:00.000Z")
    expect((await created({ apiKey: parent.key }, { expiresAt: "2999-01-01T00:00:00Z" })).expiresAt).toBe("2990-01-01T00:00:00.000Z")
    expect((await created({ apiKey: parent.key }, { expiresAt: "2980-01-01T00:00:00Z" })).expiresAt).toBe("2980-01-01T00:00:00.000Z")
    const endless = await created({ token: tenant.owner.token })
    expect((await created({ apiKey: endless.key })).expiresAt).toBeNull()
  })

  it("leaves no live key under a key revoked while its keys create keys in parallel", async () => {
    const root = await created({ token: tenant.owner.token })
    const children = await Promise.all(Array.from({ length: 4 }, () => created({ apiKey: root.key })))
    const attempts = children.flatMap((child) => Array.from({ length: 5 }, () => create({ apiKey: child.key })))
    const [revoked, ...answers] = await Promise.all([revoke(root.id), ...attempts])
    expect(revoked.status).toBe(204)
    const statuses = answers.map((answer) => answer.status)
    expect(statuses.every((status) => status === 201 || status === 401), statuses.join()).toBe(true)
    const live = await rows((sql) => sql`WITH RECURSIVE tree (id) AS (
        SELECT id FROM iam.api_keys WHERE parent_key_id = ${root.id}
        UNION SELECT k.id FROM iam.api_keys k JOIN tree t ON k.parent_key_id = t.id
      ) SELECT k.id FROM iam.api_keys k JOIN tree t ON t.id = k.id WHERE k.revoked_at IS NULL`)
    expect(live).toEqual([])
    const made = await rows((sql) => sql`SELECT k.id FROM iam.api_keys k JOIN iam.api_keys p ON p.id = k.parent_key_id
      WHERE p.parent_key_id = ${root.id}`)
    expect(made).toHaveLength(statuses.filter((status) => status === 201).length)
  })
})
