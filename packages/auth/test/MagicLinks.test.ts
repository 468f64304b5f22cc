import { describe as describeEffect, expect as expectEffect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Either, Option, TestClock } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MagicLinks } from "../src/accounts/MagicLinks.js"
import { Sessions } from "../src/accounts/Sessions.js"
import {
  auditOf,
  freshEmail,
  type Harness,
  linkIn,
  mailTo,
  makeHarness,
  PASSWORD,
  rows,
  servedPath,
  signUp,
  stackLayer
} from "./AccountsSupport.js"

const request = (h: Harness, json: Record<string, unknown>) => h.fetch("/api/auth/sign-in/magic-link", { json })

const mailedLink = async (h: Harness, email: string) => {
  const [mail] = await mailTo(h, email)
  return linkIn(mail.text)
}

describe("POST /api/auth/sign-in/magic-link", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness()
  })
  afterAll(() => h.dispose())

  it("answers { status: true } for any address and mails a link at CORE_PUBLIC_URL under identity's gateway prefix", async () => {
    const email = freshEmail("new")
    const response = await request(h, { email, callbackURL: "/dashboard", newUserCallbackURL: "/welcome" })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: true })
    const [mail] = await mailTo(h, email)
    expect(mail.subject).toBe("Your sign-in link")
    const link = linkIn(mail.text)
    expect(link.origin).toBe("https://core.example.com")
    expect(link.pathname).toBe("/api/v1/iam/api/auth/magic-link/verify")
    expect(link.searchParams.get("token")).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(link.searchParams.get("callbackURL")).toBe("/dashboard")
    expect(link.searchParams.get("newUserCallbackURL")).toBe("/welcome")
    const stored = await rows<{ token_hash: string; expires_at: Date; created_at: Date }>(h, (sql) =>
      sql`SELECT token_hash, expires_at, created_at FROM iam.verifications WHERE email = ${email}`)
    expect(stored).toHaveLength(1)
    expect(stored[0].token_hash).not.toBe(link.searchParams.get("token"))
    expect(new Date(stored[0].expires_at).getTime() - new Date(stored[0].created_at).getTime()).toBe(10 * 60 * 1000)

    const known = await signUp(h)
    const same = await request(h, { email: known.email })
    expect(same.status).toBe(200)
    expect(await same.json()).toEqual({ status: true })
  })

  it("answers 400 VALIDATION_ERROR for a bad email and 403 for a redirect to another site", async () => {
    const bad = await request(h, { email: "nope" })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ code: "VALIDATION_ERROR", message: expect.stringContaining("[body.email]") })
    for (
      const [field, code, message] of [
        ["callbackURL", "INVALID_CALLBACK_URL", "Invalid callbackURL"],
        ["errorCallbackURL", "INVALID_ERROR_CALLBACK_URL", "Invalid errorCallbackURL"],
        ["newUserCallbackURL", "INVALID_NEW_USER_CALLBACK_URL", "Invalid newUserCallbackURL"]
      ]
    ) {
      for (const target of ["https://evil.example.net/x", "//evil.example.net", "javascript:alert(1)"]) {
        const email = freshEmail()
        const response = await request(h, { email, [field]: target })
        expect(response.status).toBe(403)
        expect(await response.json()).toEqual({ code, message })
        expect(await mailTo(h, email)).toEqual([])
      }
    }
    expect((await request(h, { email: freshEmail(), callbackURL: "https://core.example.com/app" })).status).toBe(200)
  })
})

describe("GET /api/auth/magic-link/verify", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness()
  })
  afterAll(() => h.dispose())

  it("without a callbackURL answers { token, user, session } and creates a verified user on first use", async () => {
    const email = freshEmail("magic")
    await request(h, { email, name: "Grace" })
    const link = await mailedLink(h, email)
    link.searchParams.delete("callbackURL")
    const response = await h.fetch(servedPath(link))
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body).toEqual({
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      user: expect.objectContaining({ email, name: "Grace", emailVerified: true }),
      session: expect.objectContaining({ userId: body.user.id })
    })
    expect(response.headers.get("set-cookie")).toContain(`core.session_token=${body.token}`)
    expect(await (await h.fetch("/api/auth/get-session", { token: body.token })).json()).toMatchObject({ user: { email } })
    expect(await auditOf(h, "user.sign_up")).toContainEqual(
      expect.objectContaining({ actorId: body.user.id, metadata: { method: "magic_link" } })
    )

    const again = await h.fetch(servedPath(link))
    expect(again.status).toBe(401)
    expect(await again.json()).toEqual({ code: "INVALID_TOKEN", message: "Invalid token" })
  })

  it("with a callbackURL redirects there (302) with the cookie; a new user to newUserCallbackURL", async () => {
    const email = freshEmail("redirect")
    await request(h, { email, callbackURL: "/dashboard", newUserCallbackURL: "/welcome" })
    const fresh = await h.fetch(servedPath(await mailedLink(h, email)))
    expect(fresh.status).toBe(302)
    expect(fresh.headers.get("location")).toBe("https://core.example.com/welcome")
    expect(fresh.headers.get("set-cookie")).toMatch(/^core\.session_token=[A-Za-z0-9_-]{43}; Max-Age=604800/)

    await request(h, { email, callbackURL: "/dashboard", newUserCallbackURL: "/welcome" })
    const returning = await h.fetch(servedPath(await mailedLink(h, email)))
    expect(returning.status).toBe(302)
    expect(returning.headers.get("location")).toBe("https://core.example.com/dashboard")
  })

  it("redirects a used or unknown token to errorCallbackURL (else callbackURL) with ?error=INVALID_TOKEN", async () => {
    const email = freshEmail()
    await request(h, { email, callbackURL: "/dashboard", errorCallbackURL: "/sign-in" })
    const link = await mailedLink(h, email)
    expect((await h.fetch(servedPath(link))).status).toBe(302)
    const used = await h.fetch(servedPath(link))
    expect(used.status).toBe(302)
    expect(used.headers.get("location")).toBe("https://core.example.com/sign-in?error=INVALID_TOKEN")
    expect(used.headers.get("set-cookie")).toBeNull()
    const unknown = await h.fetch("/api/auth/magic-link/verify?token=nope&callbackURL=%2Fhome")
    expect(unknown.headers.get("location")).toBe("https://core.example.com/home?error=INVALID_TOKEN")
    const evil = await h.fetch("/api/auth/magic-link/verify?token=nope&callbackURL=https%3A%2F%2Fevil.example.net")
    expect(evil.status).toBe(403)
    expect(await evil.json()).toEqual({ code: "INVALID_CALLBACK_URL", message: "Invalid callbackURL" })
    const missing = await h.fetch("/api/auth/magic-link/verify")
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ code: "VALIDATION_ERROR", message: expect.stringContaining("[query.token]") })
  })

  it("proving an unverified account's address drops its password and sessions", async () => {
    const squatter = await signUp(h)
    await request(h, { email: squatter.email })
    const link = await mailedLink(h, squatter.email)
    link.searchParams.delete("callbackURL")
    const body = await (await h.fetch(servedPath(link))).json()
    expect(body.user).toMatchObject({ id: squatter.user.id, emailVerified: true })
    expect(await (await h.fetch("/api/auth/get-session", { token: squatter.token })).json()).toBeNull()
    const signIn = await h.fetch("/api/auth/sign-in/email", { json: { email: squatter.email, password: PASSWORD } })
    expect(signIn.status).toBe(401)
    const [user] = await rows<{ password_hash: string | null }>(h, (sql) =>
      sql`SELECT password_hash FROM iam.users WHERE id = ${squatter.user.id}`)
    expect(user.password_hash).toBeNull()
  })
})

const facts = { ip: null, userAgent: null, requestId: null }

layer(stackLayer())("magic links over time", (it) => {
  describeEffect("a magic link", () => {
    it.effect("works within 10 minutes, not after", () =>
      Effect.gen(function*() {
        const magicLinks = yield* MagicLinks
        const email = freshEmail("clock")
        yield* magicLinks.request({ email })
        const late = yield* latestToken(email)
        yield* TestClock.adjust(Duration.minutes(10))
        const refused = yield* Effect.either(magicLinks.verify(late, facts))
        expectEffect(Either.isLeft(refused) && refused.left.code).toBe("INVALID_TOKEN")
        yield* magicLinks.request({ email })
        const fresh = yield* latestToken(email)
        yield* TestClock.adjust(Duration.minutes(9))
        const signed = yield* magicLinks.verify(fresh, facts)
        expectEffect(signed.isNewUser).toBe(true)
        expectEffect(Option.isSome(yield* Effect.flatMap(Sessions, (s) => s.resolve(signed.token)))).toBe(true)
      }))
  })
})

const latestToken = (email: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [mail] = yield* sql<{ text_body: string }>`SELECT text_body FROM iam.mail_outbox WHERE to_address = ${email}
      ORDER BY created_at DESC, id DESC LIMIT 1`.pipe(Effect.orDie)
    return linkIn(mail.text_body).searchParams.get("token") ?? ""
  })
