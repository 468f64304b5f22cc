import { RequestContext } from "@core/kernel"
import { HttpServerRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { scrub } from "../src/audit/Audit.js"
import { AuditLog } from "../src/audit/AuditLog.js"
import { Access } from "../src/authorization/Access.js"
import { envelope, type Harness, makeHarness, seedOperator, seedTenant, seedUser, STATIC_KEY } from "./AuthorizationSupport.js"

let h: Harness
let tenant: Effect.Effect.Success<typeof seedTenant>
let other: Effect.Effect.Success<typeof seedTenant>
let operator: Effect.Effect.Success<typeof seedOperator>

const at = (minute: number) => `2030-01-01T00:${String(minute).padStart(2, "0")}:00.000Z`

const insert = (id: string, minute: number, action: string, actorId: string, organizationId: string | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO iam.audit_log (id, occurred_at, action, actor_id, actor_type, organization_id)
      VALUES (${id}, ${at(minute)}::timestamptz, ${action}, ${actorId}, 'user', ${organizationId})`)

beforeAll(async () => {
  h = await makeHarness()
  tenant = await h.run(seedTenant)
  other = await h.run(seedTenant)
  operator = await h.run(seedOperator)
  await h.run(Effect.all([
    insert("aud_t1", 1, "session.sign_in", tenant.owner.id, null),
    insert("aud_t2", 2, "role.upsert", tenant.owner.id, tenant.org.id),
    insert("aud_t3", 3, "grant.create", tenant.admin.id, tenant.org.id),
    insert("aud_t4", 4, "role.delete", tenant.admin.id, tenant.org.id),
    insert("aud_t5", 5, "session.sign_out", tenant.member.id, null),
    insert("aud_t6", 6, "apikey.create", tenant.member.id, tenant.org.id),
    insert("aud_o1", 7, "role.upsert", other.owner.id, other.org.id)
  ]))
})
afterAll(() => h.dispose())

const ids = (body: { data: Array<{ id: string }> }) => body.data.map((e) => e.id)
const read = async (query: string, token: string) => {
  const response = await h.fetch(`/api/audit/events${query}`, { token })
  return { status: response.status, body: await response.json() }
}

describe("the append-only audit log", () => {
  it("refuses UPDATE, DELETE and TRUNCATE in the database", async () => {
    const attempts = [
      (sql: SqlClient.SqlClient) => sql`UPDATE iam.audit_log SET action = 'x' WHERE id = 'aud_t1'`,
      (sql: SqlClient.SqlClient) => sql`DELETE FROM iam.audit_log WHERE id = 'aud_t1'`,
      (sql: SqlClient.SqlClient) => sql`TRUNCATE iam.audit_log`
    ]
    for (const attempt of attempts) {
      const error = await h.run(Effect.flip(Effect.flatMap(SqlClient.SqlClient, attempt)))
      expect(error._tag).toBe("SqlError")
      expect(String((error.cause as Error).message)).toContain("iam.audit_log is append-only")
    }
    const rows = await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ action: string }>`SELECT action AS "action" FROM iam.audit_log WHERE id = 'aud_t1'`))
    expect(rows).toEqual([{ action: "session.sign_in" }])
  })

  it("records the request's user agent and request id with each change, and never secrets", async () => {
    await h.fetch("/api/core/roles", {
      method: "POST",
      token: other.owner.token,
      headers: { "user-agent": "audit-test/1.0", "x-request-id": "req-audit-42" },
      json: { orgId: other.org.id, role: "auditor", permissions: ["audit:read"] }
    })
    const rows = await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ userAgent: string; requestId: string; ip: string | null }>`SELECT user_agent AS "userAgent",
        request_id AS "requestId", ip AS "ip" FROM iam.audit_log WHERE target_id = 'auditor'`))
    expect(rows).toEqual([{ userAgent: "audit-test/1.0", requestId: "req-audit-42", ip: null }])
    await h.run(Effect.flatMap(AuditLog, (log) =>
      log.record({
        action: "test.secret",
        actorType: "system",
        metadata: { token: "t0ps3cret", nested: { password: "pw", keep: 1 }, keyId: "key_1" }
      }, { ip: "203.0.113.9", userAgent: null, requestId: "r1" })))
    const [entry] = await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ metadata: unknown; ip: string }>`SELECT metadata AS "metadata", ip AS "ip" FROM iam.audit_log WHERE action = 'test.secret'`))
    expect(entry).toEqual({ metadata: { nested: { keep: 1 }, keyId: "key_1" }, ip: "203.0.113.9" })
  })

  it("takes the facts of entries recorded outside a route from the kernel's RequestContext", async () => {
    const context = { requestId: "req-context-7", ip: "192.0.2.77", userAgent: "worker/1" }
    await h.run(Effect.flatMap(AuditLog, (log) =>
      log.record({ action: "test.context", actorType: "system" }).pipe(
        Effect.provideService(RequestContext.RequestContext, context)
      )))
    await h.run(Effect.flatMap(AuditLog, (log) => log.record({ action: "test.context", actorType: "system" })))
    const rows = await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ ip: string | null; userAgent: string | null; requestId: string | null }>`SELECT ip AS "ip",
        user_agent AS "userAgent", request_id AS "requestId" FROM iam.audit_log WHERE action = 'test.context'`))
    expect(rows).toHaveLength(2)
    expect(rows).toEqual(expect.arrayContaining([
      { ip: "192.0.2.77", userAgent: "worker/1", requestId: "req-context-7" },
      { ip: null, userAgent: null, requestId: null }
    ]))
  })

  it("takes the client address from the socket, or from X-Forwarded-For only behind a trusted proxy", () => {
    const request = HttpServerRequest.fromWeb(new Request("http://iam.test/x", {
      headers: { "x-forwarded-for": "198.51.100.7, 10.0.0.1", "user-agent": "ua", "x-request-id": "abc" }
    }))
    expect(RequestContext.factsOf(request, true)).toEqual({ ip: "198.51.100.7", userAgent: "ua", requestId: "abc" })
    expect(RequestContext.factsOf(request, false)).toEqual({ ip: null, userAgent: "ua", requestId: "abc" })
    expect(scrub([{ apiKey: "k", name: "n" }])).toEqual([{ name: "n" }])
  })
})

describe("GET /api/audit/events", () => {
  it("gives operators every entry of an organization, newest first, with the entry fields", async () => {
    const { status, body } = await read(`?organizationId=${tenant.org.id}`, operator.token)
    expect(status).toBe(200)
    expect(ids(body)).toEqual(["aud_t6", "aud_t4", "aud_t3", "aud_t2"])
    expect(body.hasMore).toBe(false)
    expect(body.nextCursor).toBeNull()
    expect(body.data[0]).toEqual({
      id: "aud_t6",
      occurredAt: at(6),
      action: "apikey.create",
      outcome: "success",
      actorId: tenant.member.id,
      actorType: "user",
      organizationId: tenant.org.id,
      targetType: null,
      targetId: null,
      ip: null,
      userAgent: null,
      requestId: null,
      metadata: null
    })
  })

  it("pages with an opaque cursor on (occurredAt, id)", async () => {
    const first = await read(`?organizationId=${tenant.org.id}&limit=3`, STATIC_KEY)
    expect(ids(first.body)).toEqual(["aud_t6", "aud_t4", "aud_t3"])
    expect(first.body.hasMore).toBe(true)
    const second = await read(`?organizationId=${tenant.org.id}&limit=3&cursor=${first.body.nextCursor}`, STATIC_KEY)
    expect(ids(second.body)).toEqual(["aud_t2"])
    expect(second.body).toMatchObject({ hasMore: false, nextCursor: null })
  })

  it("filters by action (exact or prefix.*), actor and time window (from inclusive, to exclusive)", async () => {
    expect(ids((await read(`?organizationId=${tenant.org.id}&action=role.*`, operator.token)).body)).toEqual(["aud_t4", "aud_t2"])
    expect(ids((await read(`?action=role.upsert&actor=${tenant.owner.id}`, operator.token)).body)).toEqual(["aud_t2"])
    expect(ids((await read(`?actor=${tenant.owner.id}&action=session.*`, operator.token)).body)).toEqual(["aud_t1"])
    const window = await read(`?organizationId=${tenant.org.id}&from=${at(3)}&to=${at(6)}`, operator.token)
    expect(ids(window.body)).toEqual(["aud_t4", "aud_t3"])
  })

  it("gives an organization's owner and admin (audit:read) its entries, and 404 to other tenants", async () => {
    expect(ids((await read(`?organizationId=${tenant.org.id}`, tenant.admin.token)).body)).toEqual([
      "aud_t6",
      "aud_t4",
      "aud_t3",
      "aud_t2"
    ])
    const stranger = await read(`?organizationId=${tenant.org.id}`, other.owner.token)
    expect(stranger.status).toBe(404)
    expect(stranger.body).toEqual(envelope("NOT_FOUND", "Organization not found"))
  })

  it("answers 403 to a member without audit:read, who still reads their own entries there", async () => {
    await h.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`INSERT INTO iam.grants (id, organization_id, user_id, permission, granted, granted_by)
        VALUES ('grt_no_audit', ${tenant.org.id}, ${tenant.member.id}, 'audit:read', false, 'x')`
      yield* Effect.flatMap(Access, (a) => a.invalidate(tenant.org.id, tenant.member.id))
    }))
    const denied = await read(`?organizationId=${tenant.org.id}`, tenant.member.token)
    expect(denied.status).toBe(403)
    expect(denied.body).toEqual(envelope("FORBIDDEN", "Missing permission audit:read: ask an owner or admin of the organization to grant it (core grants create --permission audit:read)"))
    const own = await read(`?organizationId=${tenant.org.id}&actor=me`, tenant.member.token)
    expect(own.status).toBe(200)
    expect(ids(own.body)).toEqual(["aud_t6"])
  })

  it("without organizationId gives a user their own entries only", async () => {
    expect(ids((await read("", tenant.member.token)).body)).toEqual(["aud_t6", "aud_t5"])
    expect(ids((await read("?actor=me", tenant.member.token)).body)).toEqual(["aud_t6", "aud_t5"])
    const others = await read(`?actor=${tenant.owner.id}`, tenant.member.token)
    expect(others.status).toBe(403)
    expect(others.body).toEqual(envelope("FORBIDDEN", "Without organizationId only your own entries can be read"))
    const loner = await h.run(seedUser("loner"))
    expect((await read("", loner.token)).body).toEqual({ data: [], hasMore: false, nextCursor: null })
  })

  it("serves /api/audit and /api/audit/log alike", async () => {
    for (const path of ["/api/audit", "/api/audit/log"]) {
      const response = await h.fetch(`${path}?actor=me`, { token: tenant.member.token })
      expect(response.status).toBe(200)
      expect(ids(await response.json())).toEqual(["aud_t6", "aud_t5"])
    }
  })

  it("answers 400 for bad queries, 401 without credentials", async () => {
    const bad: Array<[string, string]> = [
      ["?limit=0", "limit"],
      ["?limit=101", "limit"],
      ["?limit=abc", "limit"],
      ["?from=yesterday", "from"],
      ["?to=2030-13-01", "to"],
      ["?action=Role", "action"],
      ["?action=role.*.x", "action"],
      ["?actor=", "actor"],
      ["?actor=%00", "actor"],
      ["?organizationId=org%00", "organizationId"],
      ["?cursor=%%%", "cursor"],
      ["?cursor=bm90LWpzb24", "cursor"],
      [`?cursor=${Buffer.from(JSON.stringify({ occurredAt: at(1), id: "a\u0000" })).toString("base64url")}`, "cursor"]
    ]
    for (const [query, path] of bad) {
      const { status, body } = await read(query, operator.token)
      expect(status, query).toBe(400)
      expect(body.error.code).toBe("VALIDATION_ERROR")
      expect(body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path)
    }
    const me = await read("?actor=me", STATIC_KEY)
    expect(me.status).toBe(400)
    expect((await h.fetch("/api/audit/events")).status).toBe(401)
  })
})
