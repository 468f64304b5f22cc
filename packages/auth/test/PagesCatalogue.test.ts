import { Iam } from "@core/contracts"
import { Route } from "@core/kernel"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ApiKeys } from "../src/authorization/ApiKeys.js"
import { WebHandlers } from "../src/web/Http.js"
import { freshSlug, type Harness, makeHarness, PASSWORD, type Visit } from "./PagesSupport.js"

/** Posts no page form accepts: another media type, too large, a field (every form has `csrf`) too long or holding NUL. */
const UNREADABLE: ReadonlyArray<[string, Visit]> = [
  ["json", { method: "POST", headers: { "content-type": "application/json" } }],
  ["xml", { method: "POST", headers: { "content-type": "application/xml" } }],
  ["too large", { form: { csrf: "x", padding: "x".repeat(20_000) } }],
  ["too long", { form: { csrf: "x".repeat(5_000), email: "x".repeat(5_000), user_code: "x".repeat(5_000) } }],
  ["NUL", { form: { csrf: "\u0000", email: "a\u0000@example.com", user_code: "\u0000" } }]
]

/** Posts that read as forms but are wrong: no token, unknown fields, an unknown action. */
const WRONG: ReadonlyArray<Visit> = [
  { form: {} },
  { form: { csrf: "", action: "maybe", user_code: "%%%", slug: "Not A Slug!", email: "not-an-email" } },
  { form: { unknown: "1" } }
]

describe("Iam.WebRoutes, route by route", () => {
  let harness: Harness
  beforeAll(async () => {
    harness = await makeHarness()
  })
  afterAll(() => harness.dispose())

  const signedIn = async () => {
    const browser = harness.browser()
    const answer = await browser.submit("/sign-up", { name: "Page", email: `page-${freshSlug()}@example.com`, password: PASSWORD })
    expect(answer.status).toBe(303)
    return browser
  }

  it("every declared route has exactly one handler", () => {
    const served = Route.served(WebHandlers)
    expect(served).toHaveLength(Object.keys(Iam.WebRoutes).length)
    expect(new Set(served)).toEqual(new Set(Object.values(Iam.WebRoutes)))
  })

  it("bad posts answer 4xx pages on every form, signed in or not; wrong forms never a 500 nor JSON", async () => {
    const browsers = [harness.browser(), await signedIn()]
    for (const [name, route] of Object.entries(Iam.WebRoutes)) {
      if (route.method !== "POST") continue
      for (const browser of browsers) {
        for (const [what, visit] of UNREADABLE) {
          const answer = await browser.visit(route.path, visit)
          expect([name, what, answer.status >= 400 && answer.status < 500]).toEqual([name, what, true])
          expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8")
        }
        for (const visit of WRONG) {
          const answer = await browser.visit(route.path, visit)
          expect([name, visit, answer.status < 500]).toEqual([name, visit, true])
          expect(answer.headers.get("content-type") ?? "text/html; charset=utf-8").toBe("text/html; charset=utf-8")
        }
      }
    }
  })

  it("a page's address with a repeated or overlong parameter is answered as without it; NUL never a 500 nor JSON", async () => {
    const browser = harness.browser()
    for (const [name, route] of Object.entries(Iam.WebRoutes)) {
      if (route.method !== "GET") continue
      const odd = await browser.visit(`${route.path}?next=%2Fa&next=%2Fb&user_code=${"B".repeat(5_000)}&signed_out=1&signed_out=1`)
      // the reset page without a token is the "link expired" page (400), like a spent link
      expect([name, odd.status < 400 || (route === Iam.WebRoutes.resetPasswordPage && odd.status === 400)]).toEqual([name, true])
      const nul = await browser.visit(`${route.path}?next=%00`)
      expect([name, nul.status === 303 || nul.headers.get("content-type") === "text/html; charset=utf-8"]).toEqual([name, true])
    }
    const signIn = await browser.visit("/sign-in?next=%2Fa&next=%2Fb&signed_out=1&signed_out=1")
    expect(signIn.status).toBe(200)
    expect(signIn.html).not.toContain("You have signed out.")
  })

  it("API keys do not open the pages: they read the session cookie only", async () => {
    const owner = await signedIn()
    const posted = await owner.submit("/org-setup", { name: "Keyed", slug: freshSlug("keyed") })
    expect(posted.status).toBe(303)
    const created = await owner.visit(posted.location!)
    const organizationId = /<dd><code>(org_[^<]+)<\/code><\/dd>/.exec(created.html)![1]
    const key = await harness.run(Effect.gen(function*() {
      const keys = yield* ApiKeys
      return (yield* keys.create({ kind: "service" }, { organizationId, name: "pages" })).key
    }))
    const browser = harness.browser()
    const account = await browser.visit("/account", { headers: { "x-api-key": key } })
    expect([account.status, account.location]).toEqual([303, "/sign-in?next=%2Faccount"])
    const post = await browser.visit("/org-setup", { form: { csrf: "x", name: "Via key", slug: freshSlug("via-key") }, headers: { "x-api-key": key } })
    expect(post.status).toBe(401)
    expect(post.html).toContain(`<a href="/sign-in?next=%2Forg-setup">Sign in</a>`)
  })
})
