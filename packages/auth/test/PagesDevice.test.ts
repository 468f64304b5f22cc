import { TestDatabase } from "@core/kernel/testing"
import { Duration } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  actionOf,
  alertOf,
  type Browser,
  freshEmail,
  type Harness,
  hiddenFields,
  makeHarness,
  PASSWORD,
  rows,
  valueOf
} from "./PagesSupport.js"

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"

/** What a device does first: ask for a code, form-encoded as RFC 8628 says. */
const startDevice = async (harness: Harness, prefix?: string) => {
  const response = await harness.fetch("/oauth/device/code", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", host: "iam.test", ...(prefix === undefined ? {} : { "x-forwarded-prefix": prefix }) },
    body: new URLSearchParams({ client_id: "core-cli" }).toString()
  })
  expect(response.status).toBe(200)
  return await response.json() as { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string }
}

/** One poll of the token endpoint. */
const poll = async (harness: Harness, deviceCode: string) => {
  const response = await harness.fetch("/oauth/device/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: "core-cli" }).toString()
  })
  return { status: response.status, body: await response.json() as Record<string, unknown> }
}

const signedIn = async (harness: Harness, email = freshEmail("device")) => {
  const browser = harness.browser()
  const answer = await browser.submit("/sign-up", { name: "Dev", email, password: PASSWORD })
  if (answer.status !== 303) throw new Error(`sign-up failed: ${answer.status}`)
  return { browser, email }
}

/** The path and query of an absolute address, as the harness serves it. */
const pathOf = (address: string) => {
  const url = new URL(address)
  return `${url.pathname}${url.search}`
}

const decideOn = async (browser: Browser, userCode: string, action: "approve" | "deny") => {
  const confirm = await browser.visit(`/device?user_code=${encodeURIComponent(userCode)}`)
  expect(confirm.status).toBe(200)
  return browser.visit(actionOf(confirm.html)!, { form: { ...hiddenFields(confirm.html), action } })
}

for (const driver of TestDatabase.drivers) {
  describe(`the device activation page on ${driver}`, () => {
    let harness: Harness
    beforeAll(async () => {
      harness = await makeHarness({ driver })
    })
    afterAll(() => harness.dispose())

    it("sends a visitor to sign in and back, names the client, approves; the device's next poll gets tokens", async () => {
      const device = await startDevice(harness)
      expect(device.verification_uri).toBe("https://core.example.com/device")
      const browser = harness.browser()
      const first = await browser.visit(pathOf(device.verification_uri_complete))
      expect(first.status).toBe(303)
      expect(first.location).toBe(`/sign-in?next=${encodeURIComponent(`/device?user_code=${device.user_code}`)}`)

      const signIn = await browser.visit(first.location!)
      expect(signIn.html).toContain(`<a href="/sign-up?next=${encodeURIComponent(`/device?user_code=${device.user_code}`)}">Create one</a>`)
      expect(signIn.html).toContain(`<p class="hint">Sign in to connect a device: a command-line login (such as core login) is waiting for you to approve it.`)
      const signUpForm = await browser.visit(`/sign-up?next=${encodeURIComponent(`/device?user_code=${device.user_code}`)}`)
      expect(signUpForm.html).toContain(`<p class="hint">Create an account to connect a device:`)
      expect((await browser.visit("/sign-in?next=%2Faccount")).html).not.toContain("to connect a device")
      const email = freshEmail("device")
      const signedUp = await browser.submit(`/sign-up?next=${encodeURIComponent(`/device?user_code=${device.user_code}`)}`, {
        name: "Dev",
        email,
        password: PASSWORD
      })
      expect(signedUp.location).toBe(`/device?user_code=${device.user_code}`)

      expect((await poll(harness, device.device_code)).body.error).toBe("authorization_pending")
      const confirm = await browser.visit(signedUp.location!)
      expect(confirm.status).toBe(200)
      expect(confirm.html).toContain("<h1>Connect Core CLI?</h1>")
      expect(confirm.html).toContain(`<strong>Core CLI</strong> is asking to act as <strong>${email}</strong>.`)
      expect(confirm.html).toContain(`<p class="code" aria-label="Code">${device.user_code}</p>`)
      expect(hiddenFields(confirm.html)).toEqual({ csrf: expect.any(String), user_code: device.user_code })

      const approved = await browser.visit(actionOf(confirm.html)!, { form: { ...hiddenFields(confirm.html), action: "approve" } })
      expect(approved.status).toBe(200)
      expect(approved.html).toContain("<h1>Device connected</h1>")
      expect(approved.html).toContain("You can close this tab and return to your terminal.")

      const tokens = await poll(harness, device.device_code)
      expect(tokens.status).toBe(200)
      expect(tokens.body).toMatchObject({ token_type: "bearer", access_token: expect.any(String), refresh_token: expect.any(String) })
      const session = await harness.fetch("/api/core/session", { token: String(tokens.body.access_token) })
      expect(((await session.json()) as { user: { email: string } }).user.email).toBe(email)
      const audited = await rows<{ action: string; outcome: string }>(harness, (sql) =>
        sql`SELECT a.action, a.outcome FROM iam.audit_log a JOIN iam.users u ON u.id = a.actor_id
          WHERE u.email = ${email} AND a.action LIKE 'device.%'`)
      expect(audited).toEqual([{ action: "device.approve", outcome: "success" }])
    })

    it("denies: the page says access was denied and the device's poll answers access_denied", async () => {
      const device = await startDevice(harness)
      const { browser } = await signedIn(harness)
      const denied = await decideOn(browser, device.user_code, "deny")
      expect(denied.status).toBe(200)
      expect(denied.html).toContain("<h1>Access denied</h1>")
      expect(denied.html).toContain("Core CLI was not connected to your account.")
      expect(await poll(harness, device.device_code)).toEqual({
        status: 400,
        body: { error: "access_denied", error_description: "The user denied the request" }
      })
    })

    it("asks for the code when none was given, accepts it typed in lower case without the dash", async () => {
      const device = await startDevice(harness)
      const { browser, email } = await signedIn(harness)
      const entry = await browser.visit("/device")
      expect(entry.status).toBe(200)
      expect(entry.html).toContain(`<form method="get" action="/device" novalidate>`)
      expect(entry.html).toContain(`You are signed in as <strong>${email}</strong>.`)
      const typed = device.user_code.replace("-", "").toLowerCase()
      const confirm = await browser.visit(`/device?user_code=${typed}`)
      expect(confirm.status).toBe(200)
      expect(hiddenFields(confirm.html).user_code).toBe(device.user_code)
    })

    it("shows a wrong, used or malformed code in the form (400), keeping what was typed", async () => {
      const { browser } = await signedIn(harness)
      const wrong = await browser.visit("/device?user_code=BBBB-BBBB")
      expect(wrong.status).toBe(400)
      expect(alertOf(wrong.html)).toBe("This code is not valid, or it was already used. Check the code on your device.")
      expect(valueOf(wrong.html, "user_code")).toBe("BBBB-BBBB")
      const hostile = await browser.visit(`/device?user_code=${encodeURIComponent("<script>x</script>")}`)
      expect(hostile.status).toBe(400)
      expect(hostile.html).not.toContain("<script>x")

      const device = await startDevice(harness)
      expect((await decideOn(browser, device.user_code, "approve")).status).toBe(200)
      const again = await browser.visit(`/device?user_code=${device.user_code}`)
      expect(again.status).toBe(400)
      expect(alertOf(again.html)).toBe("This code is not valid, or it was already used. Check the code on your device.")
    })

    it("refuses a decision without the form's token (403) or without a session (401), approving nothing", async () => {
      const device = await startDevice(harness)
      const { browser } = await signedIn(harness)
      const confirm = await browser.visit(`/device?user_code=${device.user_code}`)
      const forged = await browser.visit("/device", { form: { user_code: device.user_code, action: "approve", csrf: "x" } })
      expect(forged.status).toBe(403)
      expect(alertOf(forged.html)).toBe("This form has expired or was sent from another site. Please submit it again.")
      const crossSite = await browser.visit("/device", {
        form: { ...hiddenFields(confirm.html), action: "approve" },
        headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" }
      })
      expect(crossSite.status).toBe(403)
      const anonymous = await browser.visit("/device", { form: { ...hiddenFields(confirm.html), action: "approve" }, withoutCookies: true })
      expect(anonymous.status).toBe(401)
      const unknownAction = await browser.visit("/device", { form: { ...hiddenFields(confirm.html), action: "maybe" } })
      expect(unknownAction.status).toBe(400)
      expect((await poll(harness, device.device_code)).body.error).toBe("authorization_pending")
    })

    it("works under the gateway's prefix: sign-in and back, form actions and links under /api/v1/iam", async () => {
      const device = await startDevice(harness, "/api/v1/iam")
      expect(device.verification_uri).toBe("https://core.example.com/api/v1/iam/device")
      const { browser } = await signedIn(harness)
      const prefix = { "x-forwarded-prefix": "/api/v1/iam" }
      const anonymous = await harness.browser().visit(`/device?user_code=${device.user_code}`, { headers: prefix })
      expect(anonymous.location).toBe(`/api/v1/iam/sign-in?next=${encodeURIComponent(`/api/v1/iam/device?user_code=${device.user_code}`)}`)
      const confirm = await browser.visit(`/device?user_code=${device.user_code}`, { headers: prefix })
      expect(actionOf(confirm.html)).toBe("/api/v1/iam/device")
      expect(confirm.html).toContain(`<a href="/api/v1/iam/account">Switch account</a>`)
    })
  })
}

describe("the device activation page's limits", () => {
  let harness: Harness
  beforeAll(async () => {
    harness = await makeHarness({ device: { limits: { max: 3, window: Duration.minutes(1) } } })
  })
  afterAll(() => harness.dispose())

  it("shows an expired code as expired", async () => {
    const device = await startDevice(harness)
    const { browser } = await signedIn(harness)
    // The code's lifetime ends (its row says so), as it would ten minutes on: no wait on the clock.
    const ended = await rows<{ id: string }>(harness, (sql) =>
      sql`UPDATE iam.device_codes SET expires_at = now() - interval '1 second' WHERE user_code = replace(${device.user_code}, '-', '') RETURNING id`)
    expect(ended).toHaveLength(1)
    const expired = await browser.visit(`/device?user_code=${device.user_code}`)
    expect(expired.status).toBe(400)
    expect(alertOf(expired.html)).toBe("This code has expired. Start the login again on your device.")
  })

  it("counts looking codes up as entries: wrong codes are limited (429 with Retry-After), right ones too then", async () => {
    const { browser } = await signedIn(harness)
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await browser.visit("/device?user_code=CCCC-CCCC")).status).toBe(400)
    }
    const device = await startDevice(harness)
    const limited = await browser.visit(`/device?user_code=${device.user_code}`)
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(alertOf(limited.html)).toMatch(/^Too many wrong codes\. Try again in \d+ seconds?\.$/)
  })
})
