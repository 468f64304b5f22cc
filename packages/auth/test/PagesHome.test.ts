import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ApiKeys } from "../src/authorization/ApiKeys.js"
import { freshEmail, freshSlug, type Harness, makeHarness, PASSWORD } from "./PagesSupport.js"

describe("the home page at /", () => {
  let harness: Harness
  beforeAll(async () => {
    harness = await makeHarness()
  })
  afterAll(() => harness.dispose())

  const signedIn = async (name: string) => {
    const browser = harness.browser()
    const email = freshEmail(name.toLowerCase())
    expect((await browser.submit("/sign-up", { name, email, password: PASSWORD })).status).toBe(303)
    return { browser, email }
  }

  it("signed out: what Core is, with sign-up and sign-in (links under the prefix)", async () => {
    const answer = await harness.browser().visit("/")
    expect(answer.status).toBe(200)
    expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8")
    expect(answer.html).toContain("<h1>Welcome to Core</h1>")
    expect(answer.html).toContain(`<a class="button" href="/sign-up">Create an account</a>`)
    expect(answer.html).toContain(`<a class="button secondary" href="/sign-in">Sign in</a>`)
    const prefixed = await harness.browser().visit("/", { headers: { "x-forwarded-prefix": "/identity" } })
    expect(prefixed.html).toContain(`href="/identity/sign-up"`)
  })

  it("signed in: the user's organizations with their API keys and the user's sessions, nobody else's", async () => {
    const { browser, email } = await signedIn("Hana")
    const slug = freshSlug("home")
    const created = await browser.submit("/org-setup", { name: "Home Org", slug })
    const organizationId = new URL(created.location!, "http://x").searchParams.get("created")!
    await harness.run(Effect.gen(function*() {
      const keys = yield* ApiKeys
      yield* keys.create({ kind: "service" }, { organizationId, name: "deploy-bot" })
    }))
    const other = await signedIn("Otto")
    const otherSlug = freshSlug("other")
    await other.browser.submit("/org-setup", { name: "Other Org", slug: otherSlug })

    const home = await browser.visit("/")
    expect(home.status).toBe(200)
    expect(home.html).toContain("<h1>Hello, Hana</h1>")
    expect(home.html).toContain(`Signed in as <strong>${email}</strong>`)
    expect(home.html).toContain(`<h3>Home Org <span class="hint">${slug}</span></h3>`)
    expect(home.html).toMatch(/<li><strong>deploy-bot<\/strong> <code>[^<]+…<\/code>/)
    expect(home.html).toContain("Browser <strong>(this one)</strong>")
    expect(home.html).not.toContain("Other Org")
    expect(home.html).not.toContain(otherSlug)
    expect(home.html).toContain(`<form method="post" action="/sign-out">`)

    const empty = await (await signedIn("Nina")).browser.visit("/")
    expect(empty.html).toContain(`You are not in an organization yet. <a href="/org-setup">Create one</a>.`)
  })
})
