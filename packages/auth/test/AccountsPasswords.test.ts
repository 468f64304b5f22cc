import { afterAll, beforeAll, describe, expect, it } from "vitest"
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
  signUp
} from "./AccountsSupport.js"

const NEW_PASSWORD = "a brand new passphrase"

describe("POST /api/auth/change-password", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness()
  })
  afterAll(() => h.dispose())

  const signIn = async (email: string, password: string) =>
    h.fetch("/api/auth/sign-in/email", { json: { email, password } })

  it("changes the password with the current one; other sessions stay unless revoked", async () => {
    const { email, token, user } = await signUp(h)
    const response = await h.fetch("/api/auth/change-password", {
      token,
      json: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ token: null, user: expect.objectContaining({ id: user.id, email }) })
    expect((await signIn(email, PASSWORD)).status).toBe(401)
    expect((await signIn(email, NEW_PASSWORD)).status).toBe(200)
    expect(await (await h.fetch("/api/auth/get-session", { token })).json()).not.toBeNull()
    expect(await auditOf(h, "user.password_change")).toContainEqual(
      expect.objectContaining({ actorId: user.id, metadata: { revokeOtherSessions: false } })
    )
  })

  it("with revokeOtherSessions ends every session and answers a new one", async () => {
    const { email, token } = await signUp(h)
    const other = await (await signIn(email, PASSWORD)).json()
    const response = await h.fetch("/api/auth/change-password", {
      token,
      json: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD, revokeOtherSessions: true }
    })
    const body = await response.json()
    expect(body.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(response.headers.get("set-auth-token")).toBe(body.token)
    expect(await (await h.fetch("/api/auth/get-session", { token })).json()).toBeNull()
    expect(await (await h.fetch("/api/auth/get-session", { token: other.token })).json()).toBeNull()
    expect(await (await h.fetch("/api/auth/get-session", { token: body.token })).json()).not.toBeNull()
  })

  it("answers INVALID_PASSWORD, PASSWORD_TOO_SHORT and CREDENTIAL_ACCOUNT_NOT_FOUND", async () => {
    const { token } = await signUp(h)
    const wrong = await h.fetch("/api/auth/change-password", { token, json: { currentPassword: "nope nope", newPassword: NEW_PASSWORD } })
    expect(wrong.status).toBe(400)
    expect(await wrong.json()).toEqual({ code: "INVALID_PASSWORD", message: "Invalid password" })
    const short = await h.fetch("/api/auth/change-password", { token, json: { currentPassword: PASSWORD, newPassword: "short" } })
    expect(await short.json()).toEqual({ code: "PASSWORD_TOO_SHORT", message: "Password too short" })

    const email = freshEmail("magic")
    await h.fetch("/api/auth/sign-in/magic-link", { json: { email } })
    const [mail] = await mailTo(h, email)
    const link = linkIn(mail.text)
    link.searchParams.delete("callbackURL")
    const magic = await (await h.fetch(servedPath(link))).json()
    const passwordless = await h.fetch("/api/auth/change-password", {
      token: magic.token,
      json: { currentPassword: "anything at all", newPassword: NEW_PASSWORD }
    })
    expect(passwordless.status).toBe(400)
    expect(await passwordless.json()).toEqual({ code: "CREDENTIAL_ACCOUNT_NOT_FOUND", message: "Credential account not found" })
    const anonymous = await h.fetch("/api/auth/change-password", { json: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD } })
    expect(anonymous.status).toBe(401)
  })
})

describe("password reset", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness()
  })
  afterAll(() => h.dispose())

  const requestReset = (json: unknown) => h.fetch("/api/auth/request-password-reset", { json })

  it("answers the same for known and unknown emails; mails only the known", async () => {
    const { email } = await signUp(h)
    const unknown = freshEmail("ghost")
    const expected = { status: true, message: "If this email exists in our system, check your email for the reset link" }
    for (const address of [email, unknown]) {
      const response = await requestReset({ email: address, redirectTo: "/reset" })
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual(expected)
    }
    expect(await mailTo(h, unknown)).toEqual([])
    const [mail] = await mailTo(h, email)
    expect(mail.subject).toBe("Reset your password")
    const link = linkIn(mail.text)
    expect(link.pathname).toMatch(/^\/api\/v1\/iam\/api\/auth\/reset-password\/[A-Za-z0-9_-]{43}$/)
    expect(link.searchParams.get("callbackURL")).toBe("/reset")
  })

  it("the link lands on redirectTo with ?token=; the token resets once and ends every session", async () => {
    const { email, token: session, user } = await signUp(h)
    await requestReset({ email, redirectTo: "/reset" })
    const [mail] = await mailTo(h, email)
    const landing = await h.fetch(servedPath(linkIn(mail.text)))
    expect(landing.status).toBe(302)
    const target = new URL(landing.headers.get("location") ?? "")
    expect(`${target.origin}${target.pathname}`).toBe("https://core.example.com/reset")
    const token = target.searchParams.get("token") ?? ""
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)

    const short = await h.fetch("/api/auth/reset-password", { json: { token, newPassword: "short" } })
    expect(await short.json()).toEqual({ code: "PASSWORD_TOO_SHORT", message: "Password too short" })
    const reset = await h.fetch("/api/auth/reset-password", { json: { token, newPassword: NEW_PASSWORD } })
    expect(reset.status).toBe(200)
    expect(await reset.json()).toEqual({ status: true })
    expect(await (await h.fetch("/api/auth/get-session", { token: session })).json()).toBeNull()
    expect((await h.fetch("/api/auth/sign-in/email", { json: { email, password: NEW_PASSWORD } })).status).toBe(200)
    expect(await auditOf(h, "user.password_reset")).toEqual([expect.objectContaining({ actorId: user.id })])

    const again = await h.fetch("/api/auth/reset-password", { json: { token, newPassword: "yet another passphrase" } })
    expect(again.status).toBe(400)
    expect(await again.json()).toEqual({ code: "INVALID_TOKEN", message: "Invalid token" })
    const spent = await h.fetch(servedPath(linkIn(mail.text)))
    expect(new URL(spent.headers.get("location") ?? "").searchParams.get("error")).toBe("INVALID_TOKEN")
  })

  it("only the newest link works", async () => {
    const { email } = await signUp(h)
    await requestReset({ email })
    await requestReset({ email })
    const [newest, older] = await mailTo(h, email)
    const tokenOf = (text: string) => decodeURIComponent(linkIn(text).pathname.split("/").pop() ?? "")
    const refused = await h.fetch("/api/auth/reset-password", { json: { token: tokenOf(older.text), newPassword: NEW_PASSWORD } })
    expect(refused.status).toBe(400)
    const accepted = await h.fetch("/api/auth/reset-password", { json: { token: tokenOf(newest.text), newPassword: NEW_PASSWORD } })
    expect(accepted.status).toBe(200)
  })

  it("answers 400 VALIDATION_ERROR and 403 INVALID_REDIRECT_URL", async () => {
    const bad = await requestReset({ email: "nope" })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ code: "VALIDATION_ERROR" })
    const evil = await requestReset({ email: freshEmail(), redirectTo: "https://evil.example.net" })
    expect(evil.status).toBe(403)
    expect(await evil.json()).toEqual({ code: "INVALID_REDIRECT_URL", message: "Invalid redirectURL" })
    const noToken = await h.fetch("/api/auth/reset-password", { json: { newPassword: NEW_PASSWORD } })
    expect(noToken.status).toBe(400)
    expect(await noToken.json()).toMatchObject({ code: "VALIDATION_ERROR", message: expect.stringContaining("[body.token]") })
  })
})

describe("email verification", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness()
  })
  afterAll(() => h.dispose())

  it("mails a link that marks the address verified, once", async () => {
    const { email, token, user } = await signUp(h)
    const response = await h.fetch("/api/auth/send-verification-email", { token, json: { email, callbackURL: "/verified" } })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: true })
    const [mail] = await mailTo(h, email)
    expect(mail.subject).toBe("Verify your email address")
    const link = linkIn(mail.text)
    expect(link.pathname).toBe("/api/v1/iam/api/auth/verify-email")
    const verified = await h.fetch(servedPath(link))
    expect(verified.status).toBe(302)
    expect(verified.headers.get("location")).toBe("https://core.example.com/verified")
    expect(await (await h.fetch("/api/auth/profile", { token })).json()).toMatchObject({ emailVerified: true })
    expect(await auditOf(h, "user.email_verify")).toEqual([expect.objectContaining({ actorId: user.id })])
    const again = await h.fetch(servedPath(link))
    expect(new URL(again.headers.get("location") ?? "").searchParams.get("error")).toBe("INVALID_TOKEN")
    link.searchParams.delete("callbackURL")
    const json = await h.fetch(servedPath(link))
    expect(json.status).toBe(401)
    expect(await json.json()).toEqual({ code: "INVALID_TOKEN", message: "Invalid token" })
  })

  it("without a callbackURL answers { status: true, user }", async () => {
    const { email } = await signUp(h)
    await h.fetch("/api/auth/send-verification-email", { json: { email } })
    const link = linkIn((await mailTo(h, email))[0].text)
    link.searchParams.delete("callbackURL")
    const response = await h.fetch(servedPath(link))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: true, user: expect.objectContaining({ email, emailVerified: true }) })
  })

  it("without a session answers the same whatever the address; with one, checks it", async () => {
    const unknown = freshEmail("ghost")
    const anonymous = await h.fetch("/api/auth/send-verification-email", { json: { email: unknown } })
    expect(await anonymous.json()).toEqual({ status: true })
    expect(await mailTo(h, unknown)).toEqual([])
    const { token } = await signUp(h)
    const mismatch = await h.fetch("/api/auth/send-verification-email", { token, json: { email: freshEmail() } })
    expect(mismatch.status).toBe(400)
    expect(await mismatch.json()).toEqual({ code: "EMAIL_MISMATCH", message: "Email mismatch" })
    const magicEmail = freshEmail("verified")
    await h.fetch("/api/auth/sign-in/magic-link", { json: { email: magicEmail } })
    const link = linkIn((await mailTo(h, magicEmail))[0].text)
    link.searchParams.delete("callbackURL")
    const magic = await (await h.fetch(servedPath(link))).json()
    const already = await h.fetch("/api/auth/send-verification-email", { token: magic.token, json: { email: magicEmail } })
    expect(already.status).toBe(400)
    expect(await already.json()).toEqual({ code: "EMAIL_ALREADY_VERIFIED", message: "Email is already verified" })
    expect(await rows(h, (sql) => sql`SELECT id FROM iam.verifications WHERE email = ${unknown}`)).toEqual([])
  })
})
