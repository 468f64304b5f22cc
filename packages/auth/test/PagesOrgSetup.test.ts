import { TestDatabase } from "@core/kernel/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  alertOf,
  Browser,
  fieldError,
  freshEmail,
  freshSlug,
  type Harness,
  hiddenFields,
  makeHarness,
  PASSWORD,
  rows,
  valueOf
} from "./PagesSupport.js"

const signedIn = async (harness: Harness) => {
  const browser = harness.browser()
  const email = freshEmail("org")
  const answer = await browser.submit("/sign-up", { name: "Olga", email, password: PASSWORD })
  if (answer.status !== 303) throw new Error(`sign-up failed: ${answer.status}`)
  return { browser, email }
}

/** The same input through the JSON route, with the browser's session cookie. */
const viaApi = (harness: Harness, browser: Browser, body: unknown) =>
  harness.fetch("/api/core/org-setup", {
    method: "POST",
    headers: { cookie: `core.session_token=${browser.cookies.get("core.session_token")}` },
    json: body
  })

for (const driver of TestDatabase.drivers) {
  describe(`the organization setup page on ${driver}`, () => {
    let harness: Harness
    beforeAll(async () => {
      harness = await makeHarness({ driver })
    })
    afterAll(() => harness.dispose())

    it("asks a visitor without a session to sign in first, coming back here", async () => {
      const answer = await harness.browser().visit("/org-setup")
      expect(answer.status).toBe(303)
      expect(answer.location).toBe("/sign-in?next=%2Forg-setup")
    })

    it("creates the organization and its platform like POST /api/core/org-setup, then redirects (303) to what it created", async () => {
      const { browser, email } = await signedIn(harness)
      const form = await browser.visit("/org-setup")
      expect(form.status).toBe(200)
      expect(form.html).toContain(`Signed in as <strong>${email}</strong>`)
      const slug = freshSlug("acme")
      const posted = await browser.submit("/org-setup", { name: "Acme & Co", slug })
      expect(posted.status).toBe(303)
      expect(posted.location).toMatch(/^\/org-setup\?created=org_[A-Za-z0-9_-]+$/)
      const answer = await browser.visit(posted.location!)
      expect(answer.status).toBe(200)
      expect(answer.html).toContain(`<strong>Acme &amp; Co</strong> is ready, and you are its owner.`)
      const organizations = await rows<{ id: string; name: string; platformId: string; ownerEmail: string; role: string }>(harness, (sql) =>
        sql`SELECT o.id, o.name, o.platform_id AS "platformId", u.email AS "ownerEmail", m.role
          FROM iam.organizations o JOIN iam.members m ON m.organization_id = o.id JOIN iam.users u ON u.id = m.user_id
          WHERE o.slug = ${slug}`)
      expect(organizations).toEqual([{
        id: expect.stringMatching(/^org_/),
        name: "Acme & Co",
        platformId: expect.stringMatching(/^plt_/),
        ownerEmail: email,
        role: "owner"
      }])
      const [organization] = organizations
      expect(answer.html).toContain(`<dt>Slug</dt><dd>${slug}</dd>`)
      expect(answer.html).toContain(`<dd><code>${organization.id}</code></dd>`)
      expect(answer.html).toContain(`<dd><code>${organization.platformId}</code></dd>`)
      const refreshed = await browser.visit(posted.location!)
      expect([refreshed.status, refreshed.html]).toEqual([200, answer.html])
      expect(await rows(harness, (sql) => sql`SELECT id FROM iam.organizations WHERE slug = ${slug}`)).toHaveLength(1)
      const stranger = await (await signedIn(harness)).browser.visit(posted.location!)
      expect(stranger.html).toContain("<h1>Create your organization</h1>")
      expect(stranger.html).not.toContain(organization.id)
      const platforms = await rows<{ tier: string }>(harness, (sql) =>
        sql`SELECT tier FROM registry.platforms WHERE id = ${organization.platformId}`)
      expect(platforms).toEqual([{ tier: "free" }])
      const audited = await rows<{ action: string }>(harness, (sql) =>
        sql`SELECT action FROM iam.audit_log WHERE organization_id = ${organization.id} ORDER BY occurred_at, id`)
      expect(audited.map((row) => row.action)).toEqual(["org.create", "member.add"])
    })

    it("shows 400 field errors in the form, keeping (and escaping) the typed values, and creates nothing", async () => {
      const { browser } = await signedIn(harness)
      const name = "<b>x</b>".repeat(20)
      const answer = await browser.submit("/org-setup", { name, slug: "Not A Slug!" })
      expect(answer.status).toBe(400)
      expect(fieldError(answer.html, "name")).toBe("Enter a name of 1 to 100 characters.")
      expect(fieldError(answer.html, "slug")).toBe("Use 1 to 63 lowercase letters, digits and dashes.")
      expect(valueOf(answer.html, "name")).toBe(name)
      expect(valueOf(answer.html, "slug")).toBe("Not A Slug!")
      expect(answer.html).not.toContain("<b>x</b>")

      const api = await viaApi(harness, browser, { name, slug: "Not A Slug!" })
      expect(api.status).toBe(400)
      const empty = await browser.submit("/org-setup", { name: "", slug: "" })
      expect(empty.status).toBe(400)
      expect(fieldError(empty.html, "name")).toBe("Enter a name of 1 to 100 characters.")
      const created = await rows<{ count: number }>(harness, (sql) =>
        sql`SELECT count(*)::int AS count FROM iam.organizations WHERE slug = 'Not A Slug!' OR name = ${name}`)
      expect(created).toEqual([{ count: 0 }])
    })

    it("shows 409 'slug taken' in the form like the JSON route, keeping the typed values", async () => {
      const slug = freshSlug("taken")
      const first = await signedIn(harness)
      expect((await first.browser.submit("/org-setup", { name: "First", slug })).status).toBe(303)

      const { browser } = await signedIn(harness)
      const answer = await browser.submit("/org-setup", { name: "Second", slug })
      expect(answer.status).toBe(409)
      expect(fieldError(answer.html, "slug")).toBe("This slug is already taken. Choose another one.")
      expect(valueOf(answer.html, "name")).toBe("Second")
      expect(valueOf(answer.html, "slug")).toBe(slug)
      expect((await viaApi(harness, browser, { name: "Second", slug })).status).toBe(409)
      const owners = await rows<{ name: string }>(harness, (sql) => sql`SELECT name FROM iam.organizations WHERE slug = ${slug}`)
      expect(owners).toEqual([{ name: "First" }])
    })

    it("shows 451 in the form to the owner of a suspended platform, like the JSON route, and creates nothing (issue 27)", async () => {
      const { browser } = await signedIn(harness)
      const first = freshSlug("owned")
      expect((await browser.submit("/org-setup", { name: "Owned", slug: first })).status).toBe(303)
      const [{ platformId }] = await rows<{ platformId: string }>(harness, (sql) =>
        sql`SELECT platform_id AS "platformId" FROM iam.organizations WHERE slug = ${first}`)
      await rows(harness, (sql) => sql`INSERT INTO iam.platform_status (platform_id, status) VALUES (${platformId}, 'suspended') RETURNING platform_id`)
      const slug = freshSlug("evade")
      const answer = await browser.submit("/org-setup", { name: "Evade", slug })
      const message = `Platform ${platformId} has been suspended: its owners cannot create organizations until it is restored`
      expect([answer.status, alertOf(answer.html)]).toEqual([451, message])
      expect((await viaApi(harness, browser, { name: "Evade", slug })).status).toBe(451)
      expect(await rows(harness, (sql) => sql`SELECT id FROM iam.organizations WHERE slug = ${slug}`)).toEqual([])
      expect(await rows(harness, (sql) => sql`SELECT id FROM registry.platforms WHERE slug = ${slug}`)).toEqual([])
    })

    it("answers 401 to a post without the session cookie, as the JSON route does, also with a bearer", async () => {
      const { browser } = await signedIn(harness)
      const form = await browser.visit("/org-setup")
      const token = browser.cookies.get("core.session_token")!
      browser.cookies.delete("core.session_token")
      const slug = freshSlug("anon")
      const answer = await browser.visit("/org-setup", {
        form: { ...hiddenFields(form.html), name: "Anon", slug },
        headers: { authorization: `Bearer ${token}` }
      })
      expect(answer.status).toBe(401)
      expect(answer.html).toContain(`<a href="/sign-in?next=%2Forg-setup">Sign in</a>`)
      const created = await rows<{ count: number }>(harness, (sql) => sql`SELECT count(*)::int AS count FROM iam.organizations WHERE slug = ${slug}`)
      expect(created).toEqual([{ count: 0 }])
    })

    it("refuses a token issued to another session (403) and shows the form again with a fresh one", async () => {
      const victim = await signedIn(harness)
      const attacker = await signedIn(harness)
      const attackerForm = await attacker.browser.visit("/org-setup")
      victim.browser.cookies.set("core.csrf", attacker.browser.cookies.get("core.csrf")!)
      const slug = freshSlug("forged")
      const answer = await victim.browser.visit("/org-setup", { form: { ...hiddenFields(attackerForm.html), name: "Forged", slug } })
      expect(answer.status).toBe(403)
      expect(alertOf(answer.html)).toBe("This form has expired or was sent from another site. Please submit it again.")
      expect(valueOf(answer.html, "slug")).toBe(slug)
      expect(hiddenFields(answer.html).csrf).not.toBe(hiddenFields(attackerForm.html).csrf)
      const created = await rows<{ count: number }>(harness, (sql) => sql`SELECT count(*)::int AS count FROM iam.organizations WHERE slug = ${slug}`)
      expect(created).toEqual([{ count: 0 }])
      expect((await victim.browser.visit("/org-setup", { form: { ...hiddenFields(answer.html), name: "Mine", slug } })).status).toBe(303)
    })
  })
}
