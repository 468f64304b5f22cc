import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  addMember,
  auditOf,
  type Harness,
  makeHarness,
  PASSWORD,
  rows,
  seedOrganization,
  signUp,
  STATIC_KEY
} from "./AccountsSupport.js"
import { eventually } from "@core/kernel/testing/poll"

const envelope = (code: string, message: string, details: unknown = null) => ({
  error: { code, message, requestId: expect.any(String), details }
})

const sessionShape = {
  id: expect.stringMatching(/^ses_/),
  userId: expect.stringMatching(/^usr_/),
  expiresAt: expect.any(String),
  createdAt: expect.any(String),
  updatedAt: expect.any(String),
  ipAddress: null,
  userAgent: null,
  activeOrganizationId: null
}

describe("better-auth session routes", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness()
  })
  afterAll(() => h.dispose())

  it("GET /api/auth/get-session answers { session, user } by bearer or by cookie, never the token", async () => {
    const { token, user } = await signUp(h)
    for (const credentials of [{ token }, { cookie: token }]) {
      const response = await h.fetch("/api/auth/get-session", credentials)
      expect(response.status).toBe(200)
      expect(response.headers.get("cache-control")).toBe("no-store")
      const body = await response.json()
      expect(body).toEqual({ session: { ...sessionShape, userId: user.id }, user })
      expect(JSON.stringify(body)).not.toContain(token)
    }
  })

  it("GET /api/auth/get-session answers null (200) without a session or with a bad token", async () => {
    for (const credentials of [{}, { token: "nope" }, { cookie: "nope" }, { token: STATIC_KEY }]) {
      const response = await h.fetch("/api/auth/get-session", credentials)
      expect(response.status).toBe(200)
      expect(await response.json()).toBeNull()
    }
  })

  it("POST /api/auth/sign-out revokes the current session and clears the cookie", async () => {
    const { token, user } = await signUp(h)
    const response = await h.fetch("/api/auth/sign-out", { method: "POST", cookie: token })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ success: true })
    expect(response.headers.get("set-cookie")).toBe("core.session_token=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax")
    expect(await (await h.fetch("/api/auth/get-session", { token })).json()).toBeNull()
    const [session] = await rows<{ revoked_at: Date | null }>(h, (sql) =>
      sql`SELECT revoked_at FROM iam.sessions WHERE user_id = ${user.id}`)
    expect(session.revoked_at).not.toBeNull()
    expect(await auditOf(h, "session.sign_out")).toContainEqual(expect.objectContaining({ actorId: user.id }))
    const again = await h.fetch("/api/auth/sign-out", { method: "POST" })
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual({ success: true })
  })

  it("list-sessions, revoke-session and revoke-other-sessions act on the caller's own sessions only", async () => {
    const first = await signUp(h)
    const second = await (await h.fetch("/api/auth/sign-in/email", {
      json: { email: first.email, password: PASSWORD }
    })).json()
    const stranger = await signUp(h)
    const listed = await (await h.fetch("/api/auth/list-sessions", { token: first.token })).json()
    expect(listed).toHaveLength(2)
    expect(JSON.stringify(listed)).not.toContain(first.token)

    const firstSession = (await (await h.fetch("/api/auth/get-session", { token: first.token })).json()).session
    for (const json of [{ token: first.token }, { id: firstSession.id }, { id: "ses_unknown" }, { token: "unknown-token" }]) {
      const foreign = await h.fetch("/api/auth/revoke-session", { token: stranger.token, json })
      expect([foreign.status, await foreign.json()]).toEqual([404, { code: "SESSION_NOT_FOUND", message: "Session not found" }])
      expect(foreign.headers.get("set-cookie")).toBeNull()
    }
    expect(await (await h.fetch("/api/auth/get-session", { token: first.token })).json()).not.toBeNull()
    expect((await h.fetch("/api/core/session", { token: first.token })).status).toBe(200)

    const others = await h.fetch("/api/auth/revoke-other-sessions", { method: "POST", token: second.token })
    expect(await others.json()).toEqual({ status: true })
    expect(await (await h.fetch("/api/auth/get-session", { token: first.token })).json()).toBeNull()
    expect(await (await h.fetch("/api/auth/get-session", { token: second.token })).json()).not.toBeNull()

    const own = await h.fetch("/api/auth/revoke-session", { token: second.token, json: { token: second.token } })
    expect(await own.json()).toEqual({ status: true })
    expect(own.headers.get("set-cookie")).toContain("Max-Age=0")
    expect(await (await h.fetch("/api/auth/get-session", { token: second.token })).json()).toBeNull()
    expect(await (await h.fetch("/api/auth/get-session", { token: stranger.token })).json()).not.toBeNull()
  })

  it("answers 401 { code, message } and 400 VALIDATION_ERROR on the session routes", async () => {
    const listed = await h.fetch("/api/auth/list-sessions")
    expect(listed.status).toBe(401)
    expect(await listed.json()).toEqual({ code: "UNAUTHORIZED", message: "Unauthorized" })
    const { token } = await signUp(h)
    const empty = await h.fetch("/api/auth/revoke-session", { token, json: {} })
    expect(empty.status).toBe(400)
    expect(await empty.json()).toMatchObject({ code: "VALIDATION_ERROR", message: "[body] id or token is required" })
  })
})

describe("GET /api/sessions and DELETE /api/sessions/:id", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness()
  })
  afterAll(() => h.dispose())

  it("lists the caller's active sessions, newest first, marking the current one, without tokens", async () => {
    const first = await signUp(h)
    const second = await (await h.fetch("/api/auth/sign-in/email", {
      json: { email: first.email, password: PASSWORD }
    })).json()
    await signUp(h)
    const response = await h.fetch("/api/sessions", { token: second.token })
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body).toEqual({
      data: [
        { ...sessionShape, userId: first.user.id, current: true },
        { ...sessionShape, userId: first.user.id, current: false }
      ]
    })
    expect(JSON.stringify(body)).not.toContain(first.token)
    expect(JSON.stringify(body)).not.toContain(second.token)
  })

  it("revokes one of the caller's sessions; another user's or an unknown id answers 404", async () => {
    const owner = await signUp(h)
    const stranger = await signUp(h)
    const [ownerSession] = (await (await h.fetch("/api/sessions", { token: owner.token })).json()).data
    const foreign = await h.fetch(`/api/sessions/${ownerSession.id}`, { method: "DELETE", token: stranger.token })
    expect(foreign.status).toBe(404)
    expect(await foreign.json()).toEqual(envelope("NOT_FOUND", "Session not found"))
    expect(await (await h.fetch("/api/auth/get-session", { token: owner.token })).json()).not.toBeNull()

    const unknown = await h.fetch("/api/sessions/ses_00000000000000000000000000", { method: "DELETE", token: owner.token })
    expect(unknown.status).toBe(404)

    const response = await h.fetch(`/api/sessions/${ownerSession.id}`, { method: "DELETE", token: owner.token })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ id: ownerSession.id })
    expect(response.headers.get("set-cookie")).toContain("Max-Age=0")
    expect(await (await h.fetch("/api/auth/get-session", { token: owner.token })).json()).toBeNull()
    const again = await h.fetch(`/api/sessions/${ownerSession.id}`, { method: "DELETE", token: owner.token })
    expect(again.status).toBe(401)
    expect(await auditOf(h, "session.revoke")).toContainEqual(
      expect.objectContaining({ actorId: owner.user.id, targetId: ownerSession.id })
    )
  })

  it("answers 401 UNAUTHORIZED envelopes without a session, and for the static key alone", async () => {
    for (const credentials of [{}, { token: "bogus" }, { token: STATIC_KEY }]) {
      const response = await h.fetch("/api/sessions", credentials)
      expect(response.status).toBe(401)
    }
    expect(await (await h.fetch("/api/sessions")).json()).toEqual(envelope("UNAUTHORIZED", "Authentication required: send a session token (Authorization: Bearer <token>, or the core.session_token cookie) or an API key (x-api-key: core_<key>)"))
    expect(await (await h.fetch("/api/sessions", { token: "bogus" })).json()).toEqual(
      envelope("UNAUTHORIZED", "Invalid or expired session")
    )
  })
})

describe("GET /api/core/session and POST /api/validate-session", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness()
  })
  afterAll(() => h.dispose())

  it("answers the session with its tenant, effective role and permissions", async () => {
    const org = await seedOrganization(h)
    const { email, user } = await signUp(h)
    await addMember(h, org.id, user.id, "admin")
    const { token } = await (await h.fetch("/api/auth/sign-in/email", { json: { email, password: PASSWORD } })).json()
    const response = await h.fetch("/api/core/session", { token })
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body).toEqual({
      session: { ...sessionShape, userId: user.id, activeOrganizationId: org.id },
      user: expect.objectContaining({ id: user.id, email }),
      permissions: expect.arrayContaining(["members:manage"]),
      tenant: { organizationId: org.id, organizationSlug: org.slug, platformId: org.platformId, platformStatus: "active" },
      role: "admin"
    })
    expect(body.permissions).not.toContain("org:delete")
  })

  it("carries the platform's suspension", async () => {
    const org = await seedOrganization(h)
    const { email, user } = await signUp(h)
    await addMember(h, org.id, user.id, "member")
    await rows(h, (sql) =>
      sql`INSERT INTO iam.platform_status (platform_id, status) VALUES (${org.platformId}, 'suspended') RETURNING platform_id`)
    const { token } = await (await h.fetch("/api/auth/sign-in/email", { json: { email, password: PASSWORD } })).json()
    const body = await (await h.fetch("/api/core/session", { cookie: token })).json()
    expect(body.tenant.platformStatus).toBe("suspended")
    expect(body.role).toBe("member")
  })

  it("answers role operator and permissions * for core operators", async () => {
    const operators = await seedOrganization(h, { orgType: "core-operator", platformId: null })
    const { email, user } = await signUp(h)
    await addMember(h, operators.id, user.id, "member")
    const { token } = await (await h.fetch("/api/auth/sign-in/email", { json: { email, password: PASSWORD } })).json()
    const body = await (await h.fetch("/api/core/session", { token })).json()
    expect(body.role).toBe("operator")
    expect(body.permissions).toEqual(["*"])
    expect(body.tenant).toEqual({ organizationId: operators.id, organizationSlug: operators.slug, platformId: null, platformStatus: null })
  })

  it("leaves the tenant empty without an active organization, or once the user left it", async () => {
    const { token, user } = await signUp(h)
    const alone = await (await h.fetch("/api/core/session", { token })).json()
    expect(alone).toMatchObject({
      permissions: [],
      role: null,
      tenant: { organizationId: null, organizationSlug: null, platformId: null, platformStatus: null }
    })
    const org = await seedOrganization(h)
    await rows(h, (sql) => sql`UPDATE iam.sessions SET active_organization_id = ${org.id} WHERE user_id = ${user.id} RETURNING id`)
    // The session's answer is kept a second: read until the change shows.
    const outsider = await eventually(
      async () => await (await h.fetch("/api/core/session", { token })).json(),
      (answer) => answer.session.activeOrganizationId === org.id,
      { message: "the session to show its new active organization", interval: 100 }
    )
    expect(outsider).toMatchObject({ role: null, permissions: [], tenant: { organizationId: null, platformId: null } })
  })

  it("is kept a second: sign-out, revocation and profile changes show at once, other changes within the second", async () => {
    const org = await seedOrganization(h)
    const { email, user } = await signUp(h, { name: "Before" })
    await addMember(h, org.id, user.id, "member")
    const { token } = await (await h.fetch("/api/auth/sign-in/email", { json: { email, password: PASSWORD } })).json()
    expect((await (await h.fetch("/api/core/session", { token })).json()).role).toBe("member")
    await h.fetch("/api/auth/profile", { method: "PATCH", token, json: { name: "After" } })
    expect((await (await h.fetch("/api/core/session", { token })).json()).user.name).toBe("After")

    await rows(h, (sql) => sql`UPDATE iam.members SET role = 'admin' WHERE user_id = ${user.id} RETURNING id`)
    expect((await (await h.fetch("/api/core/session", { token })).json()).role).toBe("member")
    await eventually(async () => (await (await h.fetch("/api/core/session", { token })).json()).role, (role) => role === "admin", {
      message: "the new role within the second the session is kept",
      timeout: 5_000,
      interval: 100
    })

    const other = await (await h.fetch("/api/auth/sign-in/email", { json: { email, password: PASSWORD } })).json()
    expect((await h.fetch("/api/core/session", { token: other.token })).status).toBe(200)
    const [listed] = (await (await h.fetch("/api/sessions", { token })).json()).data
    await h.fetch(`/api/sessions/${listed.id}`, { method: "DELETE", token })
    expect((await h.fetch("/api/core/session", { token: other.token })).status).toBe(401)
    expect(await (await h.fetch("/api/validate-session", { json: { token: other.token } })).json()).toEqual({ valid: false })
    await h.fetch("/api/auth/sign-out", { method: "POST", token })
    expect((await h.fetch("/api/core/session", { token })).status).toBe(401)
  })

  it("answers 401 UNAUTHORIZED envelopes without a live session", async () => {
    for (const credentials of [{}, { token: "bogus" }, { token: STATIC_KEY }]) {
      const response = await h.fetch("/api/core/session", credentials)
      expect(response.status).toBe(401)
      expect(await response.json()).toEqual(envelope("UNAUTHORIZED", "Invalid or expired session"))
    }
  })

  it("validates a token from the body or the caller's bearer", async () => {
    const org = await seedOrganization(h)
    const { email, user } = await signUp(h)
    await addMember(h, org.id, user.id, "owner")
    const { token } = await (await h.fetch("/api/auth/sign-in/email", { json: { email, password: PASSWORD } })).json()
    const expected = {
      valid: true,
      userId: user.id,
      sessionId: expect.stringMatching(/^ses_/),
      email,
      expiresAt: expect.any(String),
      activeOrganizationId: org.id,
      platformId: org.platformId,
      platformStatus: "active",
      role: "owner"
    }
    expect(await (await h.fetch("/api/validate-session", { json: { token } })).json()).toEqual(expected)
    expect(await (await h.fetch("/api/validate-session", { method: "POST", token })).json()).toEqual(expected)
    expect(await (await h.fetch("/api/validate-session", { json: { token: "bogus" } })).json()).toEqual({ valid: false })
    expect(await (await h.fetch("/api/validate-session", { method: "POST" })).json()).toEqual({ valid: false })
    const bad = await h.fetch("/api/validate-session", { json: { token: 42 } })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toEqual(
      envelope("VALIDATION_ERROR", "Invalid request body", { issues: [{ path: "token", message: expect.any(String) }] })
    )
  })
})
