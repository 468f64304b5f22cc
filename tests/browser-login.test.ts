import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Browser, chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { spawnCore, tempHome, type TempHome } from "../packages/cli/test/login-support.js"
import { launch, migratedDataDir, ready, type Running, stop } from "../packages/server/test/ServerProcess.js"
import { eventuallyDefined } from "./support/poll.js"

/** Debian's Chromium; CI installs it (`.ci/run`). Never downloaded by the test. */
const CHROMIUM = "/usr/bin/chromium"
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync"
]

const hasChromium = existsSync(CHROMIUM)
if (!hasChromium) {
  console.warn(`tests/browser-login.test.ts skipped: no Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`)
}

const PASSWORD = "correct horse battery staple"
const COMPLETE_LINE = /\(or open (http\S+)\)/

describe.skipIf(!hasChromium)("signing up, creating an organization and approving `core login` in headless Chromium", () => {
  let server: Running
  let base: string
  let browser: Browser
  let dataDir: string
  let home: TempHome

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "core-browser-"))
    home = tempHome()
    // a known port, so that CORE_PUBLIC_URL (the mailed links' origin) names the address the browser uses
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port: free } = probe.address() as { port: number }
        probe.close(() => resolve(free))
      })
    })
    server = launch(["start"], { PORT: String(port), CORE_PUBLIC_URL: `http://127.0.0.1:${port}`, CORE_DATA_DIR: await migratedDataDir(dataDir) })
    ;[base, browser] = await Promise.all([
      ready(server),
      chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    ])
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    if (server !== undefined) await stop(server)
    rmSync(dataDir, { recursive: true, force: true })
    home?.remove()
  })

  it("the pages apply their stylesheet under the strict CSP and report no violation (JavaScript on)", async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const problems: Array<string> = []
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text())
    })
    const response = await page.goto(`${base}/sign-in`)
    expect(response?.status()).toBe(200)
    expect(response?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'")
    const button = await page.locator("button[type=submit]").evaluate((element) => getComputedStyle(element).backgroundColor)
    expect(button).toBe("rgb(45, 91, 215)")
    expect(problems).toEqual([])
    await context.close()
  })

  it("with JavaScript off: sign up, set up an organization, approve the code a running `core login` polls for", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false })
    const page = await context.newPage()
    const email = `browser-${Date.now().toString(36)}@example.com`
    const slug = `browser-${Date.now().toString(36)}`

    await page.goto(`${base}/sign-up`)
    await page.getByLabel("Name").fill("Brow Ser")
    await page.getByLabel("Email").fill(email)
    await page.getByLabel("Password").fill(PASSWORD)
    await page.getByRole("button", { name: "Create account" }).click()
    await page.waitForURL(`${base}/org-setup`)
    expect(await page.locator("h1").textContent()).toBe("Create your organization")

    await page.getByLabel("Organization name").fill("Browser Org")
    await page.getByLabel("Slug").fill("Not A Slug")
    const invalid = page.waitForResponse((response) => response.url() === `${base}/org-setup` && response.request().method() === "POST")
    await page.getByRole("button", { name: "Create organization" }).click()
    expect((await invalid).status()).toBe(400)
    expect(await page.locator("#field-slug-error").textContent()).toBe("Use 1 to 63 lowercase letters, digits and dashes.")
    expect(await page.getByLabel("Organization name").inputValue()).toBe("Browser Org")

    await page.getByLabel("Slug").fill(slug)
    const created = page.waitForResponse((response) => response.url() === `${base}/org-setup` && response.request().method() === "POST")
    await page.getByRole("button", { name: "Create organization" }).click()
    expect((await created).status()).toBe(303)
    await page.waitForURL(new RegExp(`^${base}/org-setup\\?created=org_`))
    expect(await page.locator("h1").textContent()).toBe("Organization created")
    expect(await page.locator("dd").first().textContent()).toBe(slug)

    const login = spawnCore(home, ["login", "--no-browser", "--iam-url", `${base}/api/v1/iam`], { CORE_LOGIN_TIMEOUT_MS: "90000" })
    const [, complete] = await login.waitForLine(COMPLETE_LINE)
    expect(complete).toMatch(new RegExp(`^${base}/api/v1/iam/device\\?user_code=[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$`))
    const userCode = new URL(complete).searchParams.get("user_code")!

    await page.goto(complete)
    expect(await page.locator("h1").textContent()).toBe("Connect Core CLI?")
    expect(await page.locator(".code").textContent()).toBe(userCode)
    expect(await page.locator("main").textContent()).toContain(`Core CLI is asking to act as ${email}.`)
    await page.getByRole("button", { name: "Approve" }).click()
    await page.waitForURL(`${base}/api/v1/iam/device`)
    expect(await page.locator("h1").textContent()).toBe("Device connected")
    expect(await page.locator("main").textContent()).toContain("You can close this tab")

    const run = await login.done
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" })
    expect(run.stdout).toContain(`Logged in as ${email}`)
    const credentials = home.read()
    expect(credentials).toMatchObject({ email, iamUrl: `${base}/api/v1/iam`, audience: "core-cli", refreshToken: expect.any(String) })
    expect(home.modes()).toEqual({ file: 0o600, dir: 0o700 })
    await context.close()
  })
  it("signed out, verification_uri_complete says why to sign in, and comes back to the code after sign-up", async () => {
    const issued = await fetch(`${base}/api/v1/iam/oauth/device/code`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "client_id=core-cli"
    })
    const { verification_uri_complete: complete, user_code: userCode } = await issued.json() as Record<string, string>
    const context = await browser.newContext({ javaScriptEnabled: false })
    const page = await context.newPage()
    await page.goto(complete)
    expect(new URL(page.url()).pathname).toBe("/api/v1/iam/sign-in")
    expect(await page.locator("main").textContent()).toContain("Sign in to connect a device")
    await page.getByRole("link", { name: "Create one" }).click()
    await page.getByLabel("Name").fill("Device First")
    await page.getByLabel("Email").fill(`device-first-${Date.now().toString(36)}@example.com`)
    await page.getByLabel("Password").fill(PASSWORD)
    await page.getByRole("button", { name: "Create account" }).click()
    await page.waitForURL(complete)
    expect(await page.locator("h1").textContent()).toBe("Connect Core CLI?")
    expect(await page.locator(".code").textContent()).toBe(userCode)
    await context.close()
  })

  it("forgot password: the link printed in development leads to the reset page, and the new password signs in", async () => {
    const email = `forgot-${Date.now().toString(36)}@example.com`
    const context = await browser.newContext({ javaScriptEnabled: false })
    const page = await context.newPage()
    await page.goto(`${base}/sign-up`)
    await page.getByLabel("Name").fill("For Got")
    await page.getByLabel("Email").fill(email)
    await page.getByLabel("Password").fill(PASSWORD)
    await page.getByRole("button", { name: "Create account" }).click()
    await page.waitForURL(`${base}/org-setup`)
    await context.clearCookies()

    await page.goto(`${base}/sign-in`)
    await page.getByRole("link", { name: "Forgot password?" }).click()
    await page.getByLabel("Email").fill(email)
    await page.getByRole("button", { name: "Send the link" }).click()
    expect(await page.locator("h1").textContent()).toBe("Check your email")
    const printed = new RegExp(`\\[core\\] mail to ${email.replace(".", "\\.")}: Reset your password\\n  (\\S+)`)
    const link = await eventuallyDefined(() => printed.exec(server.output.stderr)?.[1], { message: `the reset link printed for ${email}`, timeout: 30_000 })
    expect(link).toMatch(new RegExp(`^${base}/api/v1/iam/api/auth/reset-password/`))
    await page.goto(link)
    expect(new URL(page.url()).pathname).toBe("/reset-password")
    expect(await page.locator("h1").textContent()).toBe("Choose a new password")
    await page.getByLabel("New password").fill("a brand new passphrase")
    await page.getByRole("button", { name: "Change password" }).click()
    await page.waitForURL(`${base}/sign-in?reset=1`)
    await page.getByLabel("Email").fill(email)
    await page.getByLabel("Password").fill("a brand new passphrase")
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.waitForURL(`${base}/account`)

    await page.goto(link!)
    expect(await page.locator("h1").textContent()).toBe("This reset link has expired")
    await context.close()
  })
})
