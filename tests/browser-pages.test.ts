import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Browser, chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launch, migratedDataDir, ready, type Running, stop } from "../packages/server/test/ServerProcess.js"

/**
 * The all-in-one server's pages as a person sees them in Debian's Chromium: a path
 * nothing serves is an HTML "Page not found" for the browser while API clients keep the JSON
 * envelope (decision 0617), and the home page names each session's device ("Chrome on Linux"), not
 * its whole user agent. Screenshots go to `$CORE_TEST_SCREENSHOTS` (default: a temporary folder).
 */
const CHROMIUM = "/usr/bin/chromium"
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
const hasChromium = existsSync(CHROMIUM)
if (!hasChromium) console.warn(`tests/browser-pages.test.ts skipped: no Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`)

const PASSWORD = "correct horse battery staple"
const screenshots = process.env.CORE_TEST_SCREENSHOTS ?? join(tmpdir(), "core-screenshots")

describe.skipIf(!hasChromium)("the server's pages in headless Chromium", () => {
  let server: Running
  let base = ""
  let browser: Browser
  let dataDir = ""

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true })
    dataDir = mkdtempSync(join(tmpdir(), "core-browser-pages-"))
    server = launch(["start"], { PORT: "0", CORE_DATA_DIR: await migratedDataDir(dataDir) })
    ;[base, browser] = await Promise.all([ready(server), chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })])
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    if (server !== undefined) await stop(server)
    if (dataDir !== "") rmSync(dataDir, { recursive: true, force: true })
  })

  it("a path nothing serves: a 'Page not found' page for the browser, the JSON envelope for API clients", async () => {
    const page = await browser.newPage()
    const answer = await page.goto(`${base}/organizations`)
    expect(answer?.status()).toBe(404)
    expect(answer?.headers()["content-type"]).toBe("text/html; charset=utf-8")
    expect(answer?.headers()["x-request-id"]).toMatch(/\S/)
    expect(answer?.headers()["content-security-policy"]).toContain("default-src 'none'")
    expect(await page.title()).toBe("Page not found · Core")
    expect(await page.locator("h1").textContent()).toBe("Page not found")
    expect(await page.locator("main p").nth(1).textContent()).toBe("There is no page at /organizations.")
    expect(await page.locator(".hint code").textContent()).toBe(answer?.headers()["x-request-id"])
    await page.screenshot({ path: join(screenshots, "not-found.png"), fullPage: true })
    await page.getByRole("link", { name: "Go to the start page" }).click()
    await page.waitForURL(`${base}/`)
    expect(await page.locator("h1").textContent()).toBe("Welcome to Core")
    await page.close()

    // What the SDK, curl and fetch send: the envelope, as before.
    for (const accept of ["application/json", "*/*", undefined, "application/json, text/html;q=0.5"]) {
      const api = await fetch(`${base}/organizations`, { headers: accept === undefined ? {} : { accept } })
      expect({ accept, status: api.status, type: api.headers.get("content-type") }).toEqual({ accept, status: 404, type: "application/json" })
      const { error } = (await api.json()) as { error: { code: string; message: string } }
      expect(error).toMatchObject({ code: "NOT_FOUND", message: "No route for /organizations" })
    }
    // Under /api/v1 even a browser gets the envelope: an API address, not a page.
    const underApi = await fetch(`${base}/api/v1/nothing-here`, { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } })
    expect({ status: underApi.status, type: underApi.headers.get("content-type") }).toEqual({ status: 404, type: "application/json" })
  })

  it("the home page names each session's device: 'Chrome on Linux', not the user agent", async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const userAgent = await page.evaluate(() => navigator.userAgent)
    expect(userAgent).toMatch(/Chrome\/[\d.]+ .*Safari/)
    await page.goto(`${base}/sign-up`)
    await page.getByLabel("Name").fill("Dee Vice")
    await page.getByLabel("Email").fill(`device-${Date.now().toString(36)}@example.com`)
    await page.getByLabel("Password").fill(PASSWORD)
    await page.getByRole("button", { name: "Create account" }).click()
    await page.waitForURL(`${base}/org-setup`)
    await page.goto(`${base}/`)
    const sessions = page.locator("h2:has-text('Sessions') + ul li")
    expect(await sessions.count()).toBe(1)
    const session = (await sessions.first().textContent())!
    expect(session).toMatch(/^Browser \(this one\) since \d{4}-\d{2}-\d{2} from 127\.0\.0\.1 · Chrome on Linux$/)
    expect(session).not.toContain("Mozilla")
    await page.screenshot({ path: join(screenshots, "home-sessions.png"), fullPage: true })
    await context.close()
  })
})
