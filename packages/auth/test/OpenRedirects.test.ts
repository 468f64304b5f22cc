import { OPEN_REDIRECTS, SAFE_REDIRECTS } from "@core/kernel/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshEmail, type Harness, linkIn, mailTo, makeHarness, PASSWORD, rows, servedPath, signUp } from "./AccountsSupport.js"

/**
 * The account takeover of issue 27 and every open redirect beside it (decision 0555): a reset,
 * verification or magic link, or a sign-in/sign-up answer, must never send a person — and never a
 * token — off the public origin (`https://core.example.com` here).
 */
const INVALID_CALLBACK = { code: "INVALID_CALLBACK_URL", message: "Invalid callbackURL" }
const INVALID_REDIRECT = { code: "INVALID_REDIRECT_URL", message: "Invalid redirectURL" }

/** What a refused target answers: the contract's 400 for a NUL or an overlong one, else 403 and `body`. */
const refusal = (target: string, body: object): [number, unknown] =>
  target.includes("\u0000") || target.length > 4096
    ? [400, expect.objectContaining({ code: "VALIDATION_ERROR" })]
    : [403, body]

describe("open redirects and the poisoned reset link", () => {
  let h: Harness
  beforeAll(async () => {
    h = await makeHarness()
  })
  afterAll(() => h.dispose())

  const post = (path: string, json: unknown, token?: string) => h.fetch(path, { json, ...(token === undefined ? {} : { token }) })

  it("the reported takeover: a reset with redirectTo \"/\\t/evil.example.com\" is refused and mails nothing", async () => {
    const { email: victim } = await signUp(h)
    const response = await post("/api/auth/request-password-reset", { email: victim, redirectTo: "/\t/evil.example.com" })
    expect(response.status).toBe(403)
    expect(await response.json()).toEqual(INVALID_REDIRECT)
    expect(await mailTo(h, victim)).toEqual([])
    expect(await rows(h, (sql) => sql`SELECT id FROM iam.verifications WHERE email = ${victim}`)).toEqual([])
    // The victim's password still signs in.
    expect((await post("/api/auth/sign-in/email", { email: victim, password: PASSWORD })).status).toBe(200)
  })

  it.each(OPEN_REDIRECTS)("request-password-reset refuses redirectTo as %s, for known and unknown emails alike", async (_what, target) => {
    const { email } = await signUp(h)
    for (const address of [email, freshEmail("ghost")]) {
      const response = await post("/api/auth/request-password-reset", { email: address, redirectTo: target })
      expect([response.status, await response.json()]).toEqual(refusal(target, INVALID_REDIRECT))
    }
    expect(await mailTo(h, email)).toEqual([])
  })

  it("a mailed reset link whose callbackURL was poisoned lands nowhere and gives no token away", async () => {
    const { email } = await signUp(h)
    expect((await post("/api/auth/request-password-reset", { email, redirectTo: "/reset" })).status).toBe(200)
    const link = linkIn((await mailTo(h, email))[0].text)
    for (const [, target] of OPEN_REDIRECTS) {
      link.searchParams.set("callbackURL", target)
      const landing = await h.fetch(servedPath(link), { redirect: "manual" })
      const [status, body] = refusal(target, INVALID_CALLBACK)
      expect([landing.status, landing.headers.get("location"), await landing.json()]).toEqual([status, null, body])
    }
    link.searchParams.set("callbackURL", "/reset")
    const landing = await h.fetch(servedPath(link), { redirect: "manual" })
    expect(landing.status).toBe(302)
    expect(new URL(landing.headers.get("location") ?? "").origin).toBe("https://core.example.com")
  })

  it.each(OPEN_REDIRECTS)("sign-in and sign-up refuse callbackURL as %s; sign-up creates no account", async (_what, target) => {
    const { email } = await signUp(h)
    const signIn = await post("/api/auth/sign-in/email", { email, password: PASSWORD, callbackURL: target })
    const [status, body] = refusal(target, INVALID_CALLBACK)
    expect([signIn.status, signIn.headers.get("set-cookie"), await signIn.json()]).toEqual([status, null, body])
    const fresh = freshEmail("refused")
    const signUpResponse = await post("/api/auth/sign-up/email", { name: "Eve", email: fresh, password: PASSWORD, callbackURL: target })
    expect([signUpResponse.status, await signUpResponse.json()]).toEqual([status, body])
    expect(await rows(h, (sql) => sql`SELECT id FROM iam.users WHERE email = ${fresh}`)).toEqual([])
  })

  it.each(SAFE_REDIRECTS)("sign-in answers callbackURL as %s", async (_what, target) => {
    const { email } = await signUp(h)
    const response = await post("/api/auth/sign-in/email", { email, password: PASSWORD, callbackURL: target })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ redirect: true, url: target })
  })

  it("verify-email refuses a poisoned callbackURL, at the request and at the link; the address stays unverified", async () => {
    const { email, token } = await signUp(h)
    for (const [, target] of OPEN_REDIRECTS) {
      const response = await post("/api/auth/send-verification-email", { email, callbackURL: target }, token)
      expect([response.status, await response.json()]).toEqual(refusal(target, INVALID_CALLBACK))
    }
    expect(await mailTo(h, email)).toEqual([])
    expect((await post("/api/auth/send-verification-email", { email, callbackURL: "/verified" }, token)).status).toBe(200)
    const link = linkIn((await mailTo(h, email))[0].text)
    for (const [, target] of OPEN_REDIRECTS) {
      link.searchParams.set("callbackURL", target)
      const response = await h.fetch(servedPath(link), { redirect: "manual" })
      expect([response.status, response.headers.get("location")]).toEqual([refusal(target, {})[0], null])
    }
    expect(await (await h.fetch("/api/auth/profile", { token })).json()).toMatchObject({ emailVerified: false })
  })

  it("magic-link refuses poisoned callbacks at the request and at the link; the link still signs in once", async () => {
    const email = freshEmail("magic")
    for (const field of ["callbackURL", "newUserCallbackURL", "errorCallbackURL"]) {
      for (const [, target] of OPEN_REDIRECTS) {
        const response = await post("/api/auth/sign-in/magic-link", { email, [field]: target })
        expect(response.status).toBe(refusal(target, {})[0])
      }
    }
    expect(await mailTo(h, email)).toEqual([])
    expect((await post("/api/auth/sign-in/magic-link", { email, callbackURL: "/welcome" })).status).toBe(200)
    const link = linkIn((await mailTo(h, email))[0].text)
    for (const field of ["callbackURL", "newUserCallbackURL", "errorCallbackURL"]) {
      for (const [, target] of OPEN_REDIRECTS) {
        const poisoned = new URL(link)
        poisoned.searchParams.set(field, target)
        const response = await h.fetch(servedPath(poisoned), { redirect: "manual" })
        expect([response.status, response.headers.get("location"), response.headers.get("set-cookie")])
          .toEqual([refusal(target, {})[0], null, null])
      }
    }
    const landing = await h.fetch(servedPath(link), { redirect: "manual" })
    expect(landing.status).toBe(302)
    expect(landing.headers.get("location")).toBe("https://core.example.com/welcome")
  })
})
