import { TestDatabase } from "@core/kernel/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  alertOf,
  Browser,
  fieldError,
  freshEmail,
  type Harness,
  hiddenFields,
  makeHarness,
  PASSWORD,
  rows,
  valueOf
} from "./PagesSupport.js"

/** The names of the inputs that take the focus on load. */
const autofocused = (html: string) => [...html.matchAll(/<input id="field-[^"]+" name="([^"]+)"[^>]* autofocus[ >]/g)].map((m) => m[1])

const signUp = async (browser: Browser, fields: { name?: string; email?: string; password?: string } = {}) => {
  const email = fields.email ?? freshEmail("page")
  const answer = await browser.submit("/sign-up", { name: fields.name ?? "Ada", email, password: fields.password ?? PASSWORD })
  return { answer, email }
}

for (const driver of TestDatabase.drivers) {
  describe(`sign-up, sign-in, account and sign-out pages on ${driver}`, () => {
    let harness: Harness
    beforeAll(async () => {
      harness = await makeHarness({ driver })
    })
    afterAll(() => harness.dispose())

    it("GET /sign-in renders the form with a CSRF token, a nonce cookie and the page headers", async () => {
      const browser = harness.browser()
      const answer = await browser.visit("/sign-in")
      expect(answer.status).toBe(200)
      expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(answer.headers.get("x-frame-options")).toBe("DENY")
      expect(answer.headers.get("cache-control")).toBe("no-store")
      expect(answer.headers.get("content-security-policy")).toMatch(
        /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/
      )
      expect(answer.html).not.toContain("<script")
      const setCookie = answer.headers.getSetCookie()
      expect(setCookie).toHaveLength(1)
      expect(setCookie[0]).toMatch(/^core\.csrf=[A-Za-z0-9_-]{43}; Max-Age=86400; Path=\/; HttpOnly; Secure; SameSite=Lax/)
      expect(hiddenFields(answer.html)).toEqual({ csrf: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) })
      expect(answer.html).toContain(`<form method="post" action="/sign-in" novalidate>`)
      expect(answer.html).toContain(`<a href="/sign-up">Create one</a>`)

      const again = await browser.visit("/sign-in")
      expect(again.headers.getSetCookie()).toEqual([])
      expect(hiddenFields(again.html).csrf).toBe(hiddenFields(answer.html).csrf)
    })

    it("links and form actions follow X-Forwarded-Prefix; a malformed prefix is ignored", async () => {
      const browser = harness.browser()
      const prefixed = await browser.visit("/sign-in?next=%2Fapi%2Fv1%2Fiam%2Fdevice", { headers: { "x-forwarded-prefix": "/api/v1/iam" } })
      expect(prefixed.html).toContain(`<form method="post" action="/api/v1/iam/sign-in" novalidate>`)
      expect(prefixed.html).toContain(`<a href="/api/v1/iam/sign-up?next=%2Fapi%2Fv1%2Fiam%2Fdevice">Create one</a>`)
      expect(hiddenFields(prefixed.html).next).toBe("/api/v1/iam/device")

      const hostile = await browser.visit("/sign-in", { headers: { "x-forwarded-prefix": "/x\"><script>alert(1)</script>" } })
      expect(hostile.html).toContain(`<form method="post" action="/sign-in" novalidate>`)
      expect(hostile.html).not.toContain("<script>")
    })

    it("sign-up creates the account, sets the session cookie and goes on to organization setup (303)", async () => {
      const browser = harness.browser()
      const { answer, email } = await signUp(browser, { name: "Grace" })
      expect(answer.status).toBe(303)
      expect(answer.location).toBe("/org-setup")
      const session = answer.headers.getSetCookie().find((line) => line.startsWith("core.session_token="))
      expect(session).toMatch(/^core\.session_token=[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; Secure; SameSite=Lax$/)
      const users = await rows<{ name: string; email: string }>(harness, (sql) => sql`SELECT name, email FROM iam.users WHERE email = ${email}`)
      expect(users).toEqual([{ name: "Grace", email }])
      const audited = await rows<{ action: string }>(harness, (sql) =>
        sql`SELECT a.action FROM iam.audit_log a JOIN iam.users u ON u.id = a.actor_id WHERE u.email = ${email} ORDER BY a.occurred_at, a.id`)
      expect(audited.map((row) => row.action)).toEqual(["user.sign_up", "session.sign_in"])

      const account = await browser.visit("/account")
      expect(account.status).toBe(200)
      expect(account.html).toContain(`<dd>Grace</dd>`)
      expect(account.html).toContain(`<dd>${email}</dd>`)
    })

    it("escapes what people type: a name like <script> is shown as text", async () => {
      const browser = harness.browser()
      const name = `<script>alert("x")</script>'&`
      const short = await browser.submit("/sign-up", { name, email: freshEmail("xss"), password: "short" })
      expect(short.status).toBe(400)
      expect(short.html).not.toContain("<script>alert")
      expect(short.html).toContain(`value="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;"`)
      expect(valueOf(short.html, "name")).toBe(name)
      expect(valueOf(short.html, "password")).toBeUndefined()

      const { answer } = await signUp(browser, { name })
      expect(answer.status).toBe(303)
      const account = await browser.visit("/account")
      expect(account.html).not.toContain("<script>alert")
      expect(account.html).toContain(`<dd>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;</dd>`)
    })

    it("sign-up shows field errors (400) and a taken email (422) in the form, keeping the typed values", async () => {
      const browser = harness.browser()
      const empty = await browser.submit("/sign-up", { name: " ", email: "not-an-email", password: "" })
      expect(empty.status).toBe(400)
      expect(fieldError(empty.html, "name")).toBe("Enter your name.")
      expect(fieldError(empty.html, "email")).toBe("Enter a valid email address.")
      expect(fieldError(empty.html, "password")).toBe("Choose a password.")
      expect(valueOf(empty.html, "email")).toBe("not-an-email")

      const short = await browser.submit("/sign-up", { name: "Al", email: freshEmail(), password: "1234567" })
      expect(short.status).toBe(400)
      expect(fieldError(short.html, "password")).toBe("Use at least 8 characters.")

      const everything = await browser.submit("/sign-up", { name: " ", email: freshEmail(), password: "1234567" })
      expect(everything.status).toBe(400)
      expect([fieldError(everything.html, "name"), fieldError(everything.html, "email"), fieldError(everything.html, "password")])
        .toEqual(["Enter your name.", undefined, "Use at least 8 characters."])
      expect(autofocused(everything.html)).toEqual(["name"])
      const onlyPassword = await browser.submit("/sign-up", { name: "Al", email: freshEmail(), password: "1234567" })
      expect(autofocused(onlyPassword.html)).toEqual(["password"])

      const { email } = await signUp(harness.browser())
      const taken = await browser.submit("/sign-up", { name: "Bo", email, password: PASSWORD })
      expect(taken.status).toBe(422)
      expect(taken.html).toContain(
        `<p class="alert" role="alert">An account with this email already exists. <a href="/sign-in">Sign in instead</a>.</p>`
      )
      expect(valueOf(taken.html, "email")).toBe(email)
      expect(browser.cookies.has("core.session_token")).toBe(false)
    })

    it("sign-in answers a wrong password and an unknown email with the same page (401)", async () => {
      const { email } = await signUp(harness.browser())
      const browser = harness.browser()
      const wrong = await browser.submit("/sign-in", { email, password: "wrong password!" })
      const unknown = await browser.submit("/sign-in", { email: freshEmail("nobody"), password: "wrong password!" })
      expect(wrong.status).toBe(401)
      expect(unknown.status).toBe(401)
      expect(alertOf(wrong.html)).toBe("Invalid email or password.")
      const normalize = (html: string, typed: string) => html.replace(`value="${typed}"`, `value="EMAIL"`)
      expect(normalize(wrong.html, email)).toBe(normalize(unknown.html, unknown.html.match(/value="(nobody-[^"]+)"/)![1]))
      expect(wrong.headers.getSetCookie().some((line) => line.startsWith("core.session_token="))).toBe(false)
      const failures = await rows<{ outcome: string }>(harness, (sql) =>
        sql`SELECT outcome FROM iam.audit_log WHERE action = 'session.sign_in' AND metadata->>'email' = ${email.toLowerCase()}`)
      expect(failures).toEqual([{ outcome: "failure" }])
    })

    it("sign-in requires both fields (400) and rate-limits one email (429 with Retry-After)", async () => {
      const browser = harness.browser()
      const empty = await browser.submit("/sign-in", { email: "", password: "" })
      expect(empty.status).toBe(400)
      expect(fieldError(empty.html, "email")).toBe("Enter your email.")
      expect(fieldError(empty.html, "password")).toBe("Enter your password.")

      const { email } = await signUp(harness.browser())
      for (let attempt = 0; attempt < 5; attempt++) {
        expect((await browser.submit("/sign-in", { email, password: "wrong password!" })).status).toBe(401)
      }
      const limited = await browser.submit("/sign-in", { email, password: PASSWORD })
      expect(limited.status).toBe(429)
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
      expect(alertOf(limited.html)).toMatch(/^Too many sign-in attempts\. Try again in \d+ minutes?\.$/)
    })

    it("sign-in goes to a same-site next and never off the site", async () => {
      const { email } = await signUp(harness.browser())
      const cases: ReadonlyArray<[string, string]> = [
        ["/device?user_code=BCDF-GHJK", "/device?user_code=BCDF-GHJK"],
        ["/api/v1/iam/org-setup", "/api/v1/iam/org-setup"],
        ["https://evil.example/", "/account"],
        ["//evil.example/", "/account"],
        ["/\\evil.example/", "/account"],
        ["/a/../..//evil.example", "/account"],
        ["javascript:alert(1)", "/account"],
        ["/\tevil", "/account"]
      ]
      for (const [next, location] of cases) {
        const browser = harness.browser()
        const answer = await browser.submit(`/sign-in?next=${encodeURIComponent(next)}`, { email, password: PASSWORD })
        expect([next, answer.status, answer.location]).toEqual([next, 303, location])
      }
      const forged = await harness.browser().submit("/sign-in", { email, password: PASSWORD, next: "https://evil.example/" })
      expect(forged.location).toBe("/account")
    })

    it("a signed-in visitor of /sign-in or /sign-up goes on to next; /account without a session asks to sign in", async () => {
      const browser = harness.browser()
      await signUp(browser)
      expect((await browser.visit("/sign-in?next=%2Forg-setup")).location).toBe("/org-setup")
      expect((await browser.visit("/sign-up")).location).toBe("/account")
      const anonymous = await harness.browser().visit("/account", { headers: { "x-forwarded-prefix": "/api/v1/iam" } })
      expect(anonymous.status).toBe(303)
      expect(anonymous.location).toBe("/api/v1/iam/sign-in?next=%2Fapi%2Fv1%2Fiam%2Faccount")
    })

    it("a forged sign-out (no token, another site) is refused with 403 and the session lives on", async () => {
      const browser = harness.browser()
      const { email } = await signUp(browser)
      const forged = await browser.visit("/sign-out", { form: { csrf: "forged" } })
      expect(forged.status).toBe(403)
      expect(alertOf(forged.html)).toBe("This form has expired or was sent from another site. Please submit it again.")
      const page = await browser.visit("/account")
      const crossSite = await browser.visit("/sign-out", {
        form: hiddenFields(page.html),
        headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" }
      })
      expect(crossSite.status).toBe(403)
      const sessions = await rows<{ revoked: boolean }>(harness, (sql) =>
        sql`SELECT s.revoked_at IS NOT NULL AS revoked FROM iam.sessions s JOIN iam.users u ON u.id = s.user_id WHERE u.email = ${email}`)
      expect(sessions).toEqual([{ revoked: false }])
      expect((await browser.visit("/account")).status).toBe(200)
    })

    it("sign-out revokes the session, clears the cookie and says so", async () => {
      const browser = harness.browser()
      const { email } = await signUp(browser)
      const answer = await browser.submit("/account", {})
      expect(answer.status).toBe(303)
      expect(answer.location).toBe("/sign-in?signed_out=1")
      expect(answer.headers.getSetCookie().find((line) => line.startsWith("core.session_token="))).toMatch(/^core\.session_token=; Max-Age=0;/)
      const sessions = await rows<{ revoked: boolean }>(harness, (sql) =>
        sql`SELECT s.revoked_at IS NOT NULL AS revoked FROM iam.sessions s JOIN iam.users u ON u.id = s.user_id WHERE u.email = ${email}`)
      expect(sessions).toEqual([{ revoked: true }])
      const after = await browser.visit(answer.location!)
      expect(after.html).toContain(`<p class="notice" role="status">You have signed out.</p>`)
      expect((await browser.visit("/account")).status).toBe(303)
    })
  })
}
