import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  addMember,
  auditOf,
  freshEmail,
  type Harness,
  makeHarness,
  PASSWORD,
  rows,
  seedOrganization,
  signUp
} from "./AccountsSupport.js"

const userShape = (email: string, name = "Ada") => ({
  id: expect.stringMatching(/^usr_[0-9A-Z]{26}$/),
  name,
  email,
  emailVerified: false,
  image: null,
  createdAt: expect.any(String),
  updatedAt: expect.any(String)
})

const median = (values: Array<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

describe("POST /api/auth/sign-up/email", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness()
  })
  afterAll(() => h.dispose())

  it("creates the user and a session: { token, user }, set-auth-token and the session cookie", async () => {
    const email = freshEmail("Mixed.Case").replace("mixed", "MIXED")
    const response = await h.fetch("/api/auth/sign-up/email", {
      json: { name: "Ada", email, password: PASSWORD, callbackURL: "/welcome" }
    })
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body).toEqual({ token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), user: userShape(email.toLowerCase()) })
    expect(response.headers.get("set-auth-token")).toBe(body.token)
    expect(response.headers.get("access-control-expose-headers")).toBe("set-auth-token")
    expect(response.headers.get("set-cookie")).toBe(
      `core.session_token=${body.token}; Max-Age=604800; Path=/; HttpOnly; Secure; SameSite=Lax`
    )
    const [user] = await rows<{ email: string; password_hash: string }>(h, (sql) =>
      sql`SELECT email, password_hash FROM iam.users WHERE id = ${body.user.id}`)
    expect(user.email).toBe(email.toLowerCase())
    expect(user.password_hash).toMatch(/^\$scrypt\$N=16384,r=8,p=1\$/)
    const sessions = await rows<{ token_hash: string; expires_at: Date; sliding: boolean }>(h, (sql) =>
      sql`SELECT token_hash, expires_at, sliding FROM iam.sessions WHERE user_id = ${body.user.id}`)
    expect(sessions).toHaveLength(1)
    expect(sessions[0].token_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(sessions[0].token_hash).not.toContain(body.token)
    expect(sessions[0].sliding).toBe(true)
    const signUps = await auditOf(h, "user.sign_up")
    expect(signUps.filter((row) => row.targetId === body.user.id)).toEqual([
      expect.objectContaining({ actorId: body.user.id, actorType: "user", outcome: "success" })
    ])
  })

  it("answers 422 USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL for a taken email, whatever its case", async () => {
    const first = await signUp(h)
    const response = await h.fetch("/api/auth/sign-up/email", {
      json: { name: "Eve", email: first.email.toUpperCase(), password: PASSWORD }
    })
    expect(response.status).toBe(422)
    expect(await response.json()).toEqual({
      code: "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL",
      message: "User already exists. Use another email."
    })
  })

  it("enforces better-auth's password lengths: 8 to 128 characters", async () => {
    const short = await h.fetch("/api/auth/sign-up/email", { json: { name: "A", email: freshEmail(), password: "1234567" } })
    expect(short.status).toBe(400)
    expect(await short.json()).toEqual({ code: "PASSWORD_TOO_SHORT", message: "Password too short" })
    const long = await h.fetch("/api/auth/sign-up/email", {
      json: { name: "A", email: freshEmail(), password: "x".repeat(129) }
    })
    expect(long.status).toBe(400)
    expect(await long.json()).toEqual({ code: "PASSWORD_TOO_LONG", message: "Password too long" })
    const edge = await h.fetch("/api/auth/sign-up/email", { json: { name: "A", email: freshEmail(), password: "x".repeat(128) } })
    expect(edge.status).toBe(200)
  })

  it("answers 400 VALIDATION_ERROR naming each bad field", async () => {
    const response = await h.fetch("/api/auth/sign-up/email", { json: { name: 7, email: "not-an-email" } })
    expect(response.status).toBe(400)
    const body = await response.json()
    expect(body.code).toBe("VALIDATION_ERROR")
    expect(body.message).toContain("[body.name]")
    expect(body.message).toContain("[body.email]")
    expect(body.message).toContain("[body.password]")
    expect(body.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(["email", "name", "password"])
  })

  it("answers 400 INVALID_JSON and 415 in the { code, message } form", async () => {
    const broken = await h.fetch("/api/auth/sign-up/email", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{"
    })
    expect(broken.status).toBe(400)
    expect(await broken.json()).toEqual({ code: "INVALID_JSON", message: "The request body is not valid JSON" })
    const text = await h.fetch("/api/auth/sign-up/email", { method: "POST", headers: { "content-type": "text/plain" }, body: "x" })
    expect(text.status).toBe(415)
    expect(await text.json()).toEqual({ code: "UNSUPPORTED_MEDIA_TYPE", message: "Content-Type must be application/json" })
  })

  it("opens a one-day session without Max-Age when rememberMe is false", async () => {
    const email = freshEmail()
    const response = await h.fetch("/api/auth/sign-up/email", {
      json: { name: "Ada", email, password: PASSWORD, rememberMe: false }
    })
    expect(response.status).toBe(200)
    const { token, user } = await response.json()
    expect(response.headers.get("set-cookie")).toBe(`core.session_token=${token}; Path=/; HttpOnly; Secure; SameSite=Lax`)
    const [session] = await rows<{ expires_at: Date; created_at: Date; sliding: boolean }>(h, (sql) =>
      sql`SELECT expires_at, created_at, sliding FROM iam.sessions WHERE user_id = ${user.id}`)
    expect(new Date(session.expires_at).getTime() - new Date(session.created_at).getTime()).toBe(24 * 3600 * 1000)
    expect(session.sliding).toBe(false)
  })
})

describe("POST /api/auth/sign-in/email", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness({ env: { CORE_TRUST_PROXY: "1" } })
  })
  afterAll(() => h.dispose())

  const signIn = (json: unknown, ip = "203.0.113.1") =>
    h.fetch("/api/auth/sign-in/email", { json, headers: { "x-forwarded-for": ip, "user-agent": "vitest" } })

  it("answers { redirect: false, token, user } with the cookie; with callbackURL, redirect and url", async () => {
    const { email, user } = await signUp(h)
    const response = await signIn({ email: email.toUpperCase(), password: PASSWORD })
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body).toEqual({ redirect: false, token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), user: userShape(email) })
    expect(body.user.id).toBe(user.id)
    expect(response.headers.get("set-auth-token")).toBe(body.token)
    expect(response.headers.get("set-cookie")).toContain(`core.session_token=${body.token}; Max-Age=604800`)
    const withCallback = await signIn({ email, password: PASSWORD, callbackURL: "/home" })
    expect(await withCallback.json()).toMatchObject({ redirect: true, url: "/home" })
    const [session] = await rows<{ ip_address: string; user_agent: string }>(h, (sql) =>
      sql`SELECT ip_address, user_agent FROM iam.sessions WHERE token_hash IS NOT NULL AND user_id = ${user.id}
        ORDER BY created_at DESC LIMIT 1`)
    expect(session).toEqual({ ip_address: "203.0.113.1", user_agent: "vitest" })
  })

  it("answers a wrong password and an unknown email with the same 401, in the same time", async () => {
    const { email } = await signUp(h)
    const wrong = await signIn({ email, password: "wrong password!" })
    const unknown = await signIn({ email: freshEmail("nobody"), password: "wrong password!" })
    expect(wrong.status).toBe(401)
    expect(unknown.status).toBe(401)
    const expected = { code: "INVALID_EMAIL_OR_PASSWORD", message: "Invalid email or password" }
    expect(await wrong.json()).toEqual(expected)
    expect(await unknown.json()).toEqual(expected)
    expect(wrong.headers.get("set-cookie")).toBeNull()

    // The work each answer costs, as CPU time of this process (the service and its database run
    // here): the same scrypt run on both paths. CPU time, not wall time, so that another process
    // taking a core does not make the two differ.
    const timings = { wrong: [] as Array<number>, unknown: [] as Array<number> }
    for (let round = 0; round < 5; round++) {
      for (const kind of ["wrong", "unknown"] as const) {
        const started = process.cpuUsage()
        await signIn({ email: kind === "wrong" ? email : freshEmail("nobody"), password: "x" + round }, `198.51.100.${round}`)
        const spent = process.cpuUsage(started)
        timings[kind].push(spent.user + spent.system)
      }
    }
    const ratio = median(timings.unknown) / median(timings.wrong)
    expect(ratio).toBeGreaterThan(0.6)
    expect(ratio).toBeLessThan(1.6)
  })

  it("answers 400 INVALID_EMAIL for a malformed email and PASSWORD_TOO_LONG before hashing", async () => {
    const bad = await signIn({ email: "nope", password: PASSWORD })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toEqual({ code: "INVALID_EMAIL", message: "Invalid email" })
    const long = await signIn({ email: freshEmail(), password: "x".repeat(129) })
    expect(long.status).toBe(400)
    expect(await long.json()).toEqual({ code: "PASSWORD_TOO_LONG", message: "Password too long" })
    const missing = await signIn({ email: freshEmail() })
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ code: "VALIDATION_ERROR", message: expect.stringContaining("[body.password]") })
  })

  it("audits both outcomes without secrets", async () => {
    const { email, user } = await signUp(h)
    await signIn({ email, password: "wrong password!" }, "192.0.2.50")
    const ok = await (await signIn({ email, password: PASSWORD }, "192.0.2.50")).json()
    const signIns = await auditOf(h, "session.sign_in")
    const failure = signIns.find((row) => row.outcome === "failure" && row.targetId === user.id)
    expect(failure).toMatchObject({ actorType: "anonymous", ip: "192.0.2.50" })
    const success = signIns.filter((row) => row.outcome === "success" && row.actorId === user.id)
    expect(success.length).toBeGreaterThanOrEqual(2)
    const everything = JSON.stringify(await rows(h, (sql) => sql`SELECT * FROM iam.audit_log`))
    expect(everything).not.toContain(PASSWORD)
    expect(everything).not.toContain("wrong password!")
    expect(everything).not.toContain(ok.token)
    expect(h.logs.join("\n")).not.toContain(ok.token)
    expect(h.logs.join("\n")).not.toContain(PASSWORD)
  })
})

describe("POST /api/auth/delete-user", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness()
  })
  afterAll(() => h.dispose())

  it("deletes the account with its password: rows, sessions and cookie gone", async () => {
    const { token, user } = await signUp(h)
    const wrong = await h.fetch("/api/auth/delete-user", { token, json: { password: "not my password" } })
    expect(wrong.status).toBe(400)
    expect(await wrong.json()).toEqual({ code: "INVALID_PASSWORD", message: "Invalid password" })
    const missing = await h.fetch("/api/auth/delete-user", { token, json: {} })
    expect(missing.status).toBe(400)
    expect(await missing.json()).toEqual({ code: "INVALID_PASSWORD", message: "Invalid password" })
    const response = await h.fetch("/api/auth/delete-user", { token, json: { password: PASSWORD } })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ success: true, message: "User deleted" })
    expect(response.headers.get("set-cookie")).toBe("core.session_token=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax")
    expect(await rows(h, (sql) => sql`SELECT id FROM iam.users WHERE id = ${user.id}`)).toEqual([])
    expect(await rows(h, (sql) => sql`SELECT id FROM iam.sessions WHERE user_id = ${user.id}`)).toEqual([])
    expect(await (await h.fetch("/api/auth/get-session", { token })).json()).toBeNull()
    expect(await auditOf(h, "user.delete")).toEqual([expect.objectContaining({ actorId: user.id, targetId: user.id })])
  })

  it("refuses while the user is the only owner of an organization, and allows it once another owner exists", async () => {
    const owner = await signUp(h)
    const other = await signUp(h)
    const org = await seedOrganization(h)
    await addMember(h, org.id, owner.user.id, "owner")
    const refused = await h.fetch("/api/auth/delete-user", { token: owner.token, json: { password: PASSWORD } })
    expect(refused.status).toBe(400)
    expect(await refused.json()).toEqual({
      code: "USER_IS_THE_ONLY_OWNER_OF_AN_ORGANIZATION",
      message: "The user is the only owner of an organization; transfer or delete it first"
    })
    expect(await rows(h, (sql) => sql`SELECT id FROM iam.users WHERE id = ${owner.user.id}`)).toHaveLength(1)
    await addMember(h, org.id, other.user.id, "owner")
    const deleted = await h.fetch("/api/auth/delete-user", { token: owner.token, json: { password: PASSWORD } })
    expect(deleted.status).toBe(200)
    expect(await rows(h, (sql) => sql`SELECT user_id FROM iam.members WHERE organization_id = ${org.id}`)).toEqual([
      { user_id: other.user.id }
    ])
  })

  it("answers 401 without a session", async () => {
    const response = await h.fetch("/api/auth/delete-user", { json: { password: PASSWORD } })
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual({ code: "UNAUTHORIZED", message: "Unauthorized" })
  })
})
