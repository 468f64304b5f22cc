import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { make } from "../src/web/Csrf.js"
import { alertOf, freshEmail, type Harness, hiddenFields, makeHarness, PASSWORD, rows } from "./PagesSupport.js"

const CSRF_MESSAGE = "This form has expired or was sent from another site. Please submit it again."

describe("CSRF protection of the page forms", () => {
  let harness: Harness
  beforeAll(async () => {
    harness = await makeHarness()
  })
  afterAll(() => harness.dispose())

  /** A sign-up post that would succeed, but for what `tamper` does to it. */
  const attempt = async (tamper: (form: Record<string, string>, headers: Record<string, string>) => void, dropCookie = false) => {
    const browser = harness.browser()
    const page = await browser.visit("/sign-up")
    const email = freshEmail("csrf")
    const form: Record<string, string> = { ...hiddenFields(page.html), name: "Eve", email, password: PASSWORD }
    const headers: Record<string, string> = {}
    tamper(form, headers)
    if (dropCookie) browser.cookies.delete("core.csrf")
    const answer = await browser.visit("/sign-up", { form, headers })
    const users = await rows<{ count: number }>(harness, (sql) => sql`SELECT count(*)::int AS count FROM iam.users WHERE email = ${email}`)
    return { answer, created: users[0].count === 1 }
  }

  it("accepts a same-origin post with the form's token", async () => {
    const { answer, created } = await attempt(() => {})
    expect(answer.status).toBe(303)
    expect(created).toBe(true)
  })

  it("refuses a post without the token, with a wrong one, or with another form's (403, nothing created)", async () => {
    const signInPage = await harness.browser().visit("/sign-in")
    const cases: ReadonlyArray<(form: Record<string, string>) => void> = [
      (form) => void delete form.csrf,
      (form) => void (form.csrf = "A".repeat(43)),
      (form) => void (form.csrf = ""),
      (form) => void (form.csrf = hiddenFields(signInPage.html).csrf)
    ]
    for (const tamper of cases) {
      const { answer, created } = await attempt(tamper)
      expect([answer.status, alertOf(answer.html), created]).toEqual([403, CSRF_MESSAGE, false])
      expect(hiddenFields(answer.html).csrf).toMatch(/^[A-Za-z0-9_-]{43}$/)
    }
  })

  it("refuses a post whose browser has no nonce cookie, and sets a new one with the form shown again", async () => {
    const { answer, created } = await attempt(() => {}, true)
    expect(answer.status).toBe(403)
    expect(created).toBe(false)
    expect(answer.headers.getSetCookie().some((line) => line.startsWith("core.csrf="))).toBe(true)
  })

  it("refuses posts from another site: a foreign or opaque Origin, Sec-Fetch-Site cross-site, same-site without Origin", async () => {
    const cases: ReadonlyArray<Record<string, string>> = [
      { origin: "https://evil.example" },
      { origin: "http://iam.test.evil.example" },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
      { origin: "http://iam.test", "sec-fetch-site": "cross-site" },
      { origin: "", "sec-fetch-site": "same-site" }
    ]
    for (const extra of cases) {
      const { answer, created } = await attempt((_, headers) => Object.assign(headers, extra))
      expect([extra, answer.status, created]).toEqual([extra, 403, false])
    }
  })

  it("accepts the public address (CORE_PUBLIC_URL) as an origin, and a client that sends no Origin", async () => {
    const publicOrigin = await attempt((_, headers) => Object.assign(headers, { origin: "https://core.example.com", host: "internal:8080" }))
    expect(publicOrigin.answer.status).toBe(303)
    const noOrigin = await attempt((_, headers) => Object.assign(headers, { origin: "", "sec-fetch-site": "" }))
    expect(noOrigin.answer.status).toBe(303)
  })

  it("answers a form of the wrong type (415) or too large (413) with a page, not JSON", async () => {
    const browser = harness.browser()
    await browser.visit("/sign-in")
    const json = await browser.visit("/sign-in", { method: "POST", headers: { "content-type": "application/json" } })
    expect(json.status).toBe(415)
    expect(json.headers.get("content-type")).toBe("text/html; charset=utf-8")
    expect(json.html).toContain("<h1>This form could not be read</h1>")
    const large = await browser.visit("/sign-in", { form: { email: "a@example.com", password: "x".repeat(20_000) } })
    expect(large.status).toBe(413)
    expect(large.html).toContain("<h1>This form is too large</h1>")
    expect(large.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
  })
})

describe("Csrf.make", () => {
  const csrf = make({ secret: "a-secret-of-enough-length-0123456789", secure: true, allowedOrigins: [], trustProxy: true })
  const request = (headers: Record<string, string>, cookies: Record<string, string> = {}) =>
    ({ headers, cookies }) as unknown as Parameters<typeof csrf.verify>[0]

  it("binds a token to the nonce, the form and the session", () => {
    const issued = csrf.issue(request({}), "org-setup", "ses_1")
    const withNonce = request({ host: "core.test" }, { "core.csrf": issued.nonce })
    expect(issued.fresh).toBe(true)
    expect(csrf.verify(withNonce, "org-setup", issued.token, "ses_1")._tag).toBe("Right")
    expect(csrf.verify(withNonce, "org-setup", issued.token, "ses_2")._tag).toBe("Left")
    expect(csrf.verify(withNonce, "device", issued.token, "ses_1")._tag).toBe("Left")
    const other = make({ secret: "another-secret-of-enough-length-012345", secure: true, allowedOrigins: [], trustProxy: false })
    expect(other.verify(withNonce, "org-setup", issued.token, "ses_1")._tag).toBe("Left")
  })

  it("trusts X-Forwarded-Host only behind a trusted proxy", () => {
    const issued = csrf.issue(request({}), "sign-in")
    const proxied = request({ host: "internal:8080", "x-forwarded-host": "core.test", origin: "https://core.test" }, { "core.csrf": issued.nonce })
    expect(csrf.verify(proxied, "sign-in", issued.token)._tag).toBe("Right")
    const untrusting = make({ secret: "a-secret-of-enough-length-0123456789", secure: true, allowedOrigins: [], trustProxy: false })
    expect(untrusting.verify(proxied, "sign-in", issued.token)._tag).toBe("Left")
  })
})
