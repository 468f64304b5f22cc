import { TestDatabase } from "@core/kernel/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { resetRequestedPage } from "../src/web/PasswordResetPage.js"
import { alertOf, fieldError, freshEmail, type Harness, hiddenFields, makeHarness, PASSWORD, rows } from "./PagesSupport.js"

const NEW_PASSWORD = "a brand new passphrase"

for (const driver of TestDatabase.drivers) {
  describe(`forgot-password and reset-password pages on ${driver}`, () => {
    let harness: Harness
    beforeAll(async () => {
      harness = await makeHarness({ driver })
    })
    afterAll(() => harness.dispose())

    const mailsTo = (email: string) =>
      rows<{ text: string }>(harness, (sql) =>
        sql`SELECT text_body AS text FROM iam.mail_outbox WHERE to_address = ${email} ORDER BY created_at DESC, id DESC`)

    const signedUp = async () => {
      const browser = harness.browser()
      const email = freshEmail("reset")
      expect((await browser.submit("/sign-up", { name: "Re Set", email, password: PASSWORD })).status).toBe(303)
      return { browser, email }
    }

    /** The reset page's address from the newest mail: the landing's redirect, made relative. */
    const resetAddress = async (email: string) => {
      const [mail] = await mailsTo(email)
      const link = new URL(/https?:\/\/\S+/.exec(mail.text)![0])
      const landing = await harness.browser().visit(`${link.pathname.replace(/^\/api\/v1\/iam/, "")}${link.search}`)
      expect(landing.status).toBe(302)
      const target = new URL(landing.location!)
      return `${target.pathname}${target.search}`
    }

    it("asks for a link with the same answer for known and unknown emails; mails only the known, to the reset page under the prefix", async () => {
      const { email } = await signedUp()
      const unknown = freshEmail("ghost")
      for (const address of [email, unknown]) {
        const answer = await harness.browser().submit("/forgot-password", { email: address })
        expect([answer.status, /<h1>([^<]*)<\/h1>/.exec(answer.html)?.[1]]).toEqual([200, "Check your email"])
      }
      expect(await mailsTo(unknown)).toEqual([])
      expect(await resetAddress(email)).toMatch(/^\/reset-password\?token=[A-Za-z0-9_-]{43}$/)

      const prefixed = harness.browser()
      const form = await prefixed.visit("/forgot-password", { headers: { "x-forwarded-prefix": "/api/v1/iam" } })
      expect(form.html).toContain(`<form method="post" action="/api/v1/iam/forgot-password" novalidate>`)
      await prefixed.visit("/forgot-password", {
        form: { ...hiddenFields(form.html), email },
        headers: { "x-forwarded-prefix": "/api/v1/iam" }
      })
      expect(await resetAddress(email)).toMatch(/^\/api\/v1\/iam\/reset-password\?token=/)
    })

    it("says where the link went: in development (the outbox printing links) the server's terminal, else nowhere", async () => {
      const answer = await harness.browser().submit("/forgot-password", { email: freshEmail("hint") })
      expect(answer.html).not.toContain("printed in the terminal")
      expect(resetRequestedPage("", "dev@example.com", true).value)
        .toContain("In development, no mail leaves this server: the link is printed in the terminal where the server runs")
    })

    it("refuses a malformed email in the form, and a forged post (403), mailing nothing", async () => {
      const { email } = await signedUp()
      const bad = await harness.browser().submit("/forgot-password", { email: "not-an-email" })
      expect([bad.status, fieldError(bad.html, "email")]).toEqual([400, "Enter a valid email address."])
      const forged = await harness.browser().visit("/forgot-password", { form: { csrf: "x", email } })
      expect([forged.status, alertOf(forged.html)]).toEqual([
        403,
        "This form has expired or was sent from another site. Please submit it again."
      ])
      expect(await mailsTo(email)).toEqual([])
    })

    it("sets the new password once: a short one keeps the link, sessions end, the old password fails", async () => {
      const { browser: session, email } = await signedUp()
      await harness.browser().submit("/forgot-password", { email })
      const address = await resetAddress(email)
      const reader = harness.browser()
      const short = await reader.submit(address, { password: "short" })
      expect([short.status, fieldError(short.html, "password")]).toEqual([400, "Use at least 8 characters."])
      expect(hiddenFields(short.html).token).toBe(new URL(address, "http://x").searchParams.get("token"))

      const done = await reader.submit(address, { password: NEW_PASSWORD })
      expect([done.status, done.location]).toEqual([303, "/sign-in?reset=1"])
      const live = await rows<{ count: number }>(harness, (sql) =>
        sql`SELECT count(*)::int AS count FROM iam.sessions s JOIN iam.users u ON u.id = s.user_id
          WHERE u.email = ${email} AND s.revoked_at IS NULL`)
      expect(live).toEqual([{ count: 0 }])
      expect((await session.visit("/account")).status).toBe(303)
      expect((await harness.browser().submit("/sign-in", { email, password: PASSWORD })).status).toBe(401)
      expect((await harness.browser().submit("/sign-in", { email, password: NEW_PASSWORD })).status).toBe(303)

      const again = await harness.browser().visit(address)
      expect([again.status, /<h1>([^<]*)<\/h1>/.exec(again.html)?.[1]]).toEqual([400, "This reset link has expired"])
      expect(again.html).toContain(`<a href="/forgot-password">Ask for a new link</a>`)
    })

    it("answers a missing, malformed or refused token with the expired page, never a 500", async () => {
      for (const address of ["/reset-password", "/reset-password?token=%00", "/reset-password?error=INVALID_TOKEN", `/reset-password?token=${"a".repeat(300)}`]) {
        const answer = await harness.browser().visit(address)
        expect([address, answer.status, answer.headers.get("content-type")]).toEqual([address, 400, "text/html; charset=utf-8"])
      }
      const forged = await harness.browser().visit("/reset-password", { form: { csrf: "x", token: "nope", password: NEW_PASSWORD } })
      expect(forged.status).toBe(403)

      const { email } = await signedUp()
      await harness.browser().submit("/forgot-password", { email })
      const browser = harness.browser()
      const form = await browser.visit(await resetAddress(email))
      const tampered = await browser.visit("/reset-password", { form: { ...hiddenFields(form.html), token: "nope", password: NEW_PASSWORD } })
      expect([tampered.status, /<h1>([^<]*)<\/h1>/.exec(tampered.html)?.[1]]).toEqual([400, "This reset link has expired"])
    })
  })
}
