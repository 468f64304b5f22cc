import { serve } from "@hono/node-server"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeHost } from "../examples/hono-host/src/app.js"

/**
 * The identity pages embedded in host apps under a prefix, in headless Chromium with JavaScript off:
 * every link and form action follows the mount (`@core/http` sends it as `X-Forwarded-Prefix`).
 */

const CHROMIUM = "/usr/bin/chromium"
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
const hasChromium = existsSync(CHROMIUM)
if (!hasChromium) console.warn(`tests/browser-embedded.test.ts skipped: no Chromium at ${CHROMIUM}`)

const PASSWORD = "correct horse battery staple"
const SECRET = "embedded-host-secret-0123456789abcdef"
const root = fileURLToPath(new URL("..", import.meta.url))

/** Sign up under `mount`, land on organization setup, see the home page, sign out and in again. */
const signUpAndIn = async (page: Page, origin: string, mount: string) => {
  const email = `embedded-${mount.slice(1)}-${Date.now().toString(36)}@example.com`
  await page.goto(`${origin}${mount}/`)
  expect(await page.locator("h1").textContent()).toBe("Welcome to Core")
  await page.getByRole("link", { name: "Create an account" }).click()
  await page.waitForURL(`${origin}${mount}/sign-up`)
  await page.getByLabel("Name").fill("Em Bedded")
  await page.getByLabel("Email").fill(email)
  await page.getByLabel("Password").fill(PASSWORD)
  await page.getByRole("button", { name: "Create account" }).click()
  await page.waitForURL(`${origin}${mount}/org-setup`)
  expect(await page.locator("h1").textContent()).toBe("Create your organization")
  expect(await page.locator("main").textContent()).toContain(`Signed in as ${email}`)

  await page.goto(`${origin}${mount}/`)
  expect(await page.locator("h1").textContent()).toBe("Hello, Em Bedded")
  await page.getByRole("button", { name: "Sign out" }).click()
  await page.waitForURL(`${origin}${mount}/sign-in?signed_out=1`)
  await page.getByLabel("Email").fill(email)
  await page.getByLabel("Password").fill(PASSWORD)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.waitForURL(`${origin}${mount}/account`)
  expect(await page.locator("main").textContent()).toContain(email)
  return email
}

describe.skipIf(!hasChromium)("identity pages embedded under a prefix, in Chromium", () => {
  let browser: Browser
  const closers: Array<() => Promise<void> | void> = []
  let hono = ""
  let express = ""
  let work = ""

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "core-embedded-"))
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    closers.push(() => browser.close())

    const host = makeHost({ env: { NODE_ENV: "test", CORE_DATA_DIR: ":memory:", CORE_SECRET: SECRET } })
    hono = await new Promise<string>((resolve) => {
      const server = serve({ fetch: host.app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) =>
        resolve(`http://127.0.0.1:${info.port}`))
      closers.push(() => new Promise<void>((done) => server.close(() => done())), () => host.dispose())
    })

    const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "tests/fixtures/express-identity-host.ts"], {
      cwd: root,
      env: { PATH: process.env.PATH, NODE_ENV: "test", CORE_DATA_DIR: join(work, "express"), CORE_SECRET: SECRET },
      stdio: ["ignore", "pipe", "inherit"]
    })
    express = await new Promise<string>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`express host exited with ${code}`)))
      child.stdout.once("data", (data: Buffer) => resolve(`http://127.0.0.1:${data.toString().trim()}`))
    })
    closers.push(() => new Promise<void>((done) => (child.once("exit", () => done()), child.kill("SIGTERM"))))
  }, 120_000)

  afterAll(async () => {
    for (const close of closers.reverse()) await close()
    if (work !== "") rmSync(work, { recursive: true, force: true })
  })

  it("Hono (examples/hono-host, /identity): sign-up → signed in, every step under the prefix", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false })
    const page = await context.newPage()
    const posts: Array<string> = []
    page.on("request", (request) => void (request.method() === "POST" && posts.push(new URL(request.url()).pathname)))
    await signUpAndIn(page, hono, "/identity")
    expect(posts).toEqual(["/identity/sign-up", "/identity/sign-out", "/identity/sign-in"])
    await context.close()
  }, 60_000)

  it("Express (@core/http/express, /auth): sign-up → signed in, every step under the prefix", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false })
    const page = await context.newPage()
    const posts: Array<string> = []
    page.on("request", (request) => void (request.method() === "POST" && posts.push(new URL(request.url()).pathname)))
    await signUpAndIn(page, express, "/auth")
    expect(posts).toEqual(["/auth/sign-up", "/auth/sign-out", "/auth/sign-in"])
    await context.close()
  }, 60_000)

  it("the pages as a person sees them: every error at once, focus on the first in error, no second post on refresh", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false })
    const page = await context.newPage()
    await page.goto(`${hono}/identity/sign-up`)
    await page.getByLabel("Name").fill(" ")
    await page.getByLabel("Email").fill(`focus-${Date.now().toString(36)}@example.com`)
    await page.getByLabel("Password").fill("short")
    await page.getByRole("button", { name: "Create account" }).click()
    await page.waitForLoadState()
    expect(await page.locator(".field-error").allTextContents()).toEqual(["Enter your name.", "Use at least 8 characters."])
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("field-name")

    await page.getByLabel("Name").fill("Fo Cus")
    await page.getByLabel("Password").fill("short")
    await page.getByRole("button", { name: "Create account" }).click()
    await page.waitForLoadState()
    expect(await page.locator(".field-error").allTextContents()).toEqual(["Use at least 8 characters."])
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("field-password")
    await page.getByLabel("Password").fill(PASSWORD)
    await page.getByRole("button", { name: "Create account" }).click()
    await page.waitForURL(`${hono}/identity/org-setup`)

    const slug = `prg-${Date.now().toString(36)}`
    await page.getByLabel("Organization name").fill("Refresh Proof")
    await page.getByLabel("Slug").fill(slug)
    await page.getByRole("button", { name: "Create organization" }).click()
    await page.waitForURL(/\/identity\/org-setup\?created=org_/)
    expect(await page.locator("h1").textContent()).toBe("Organization created")
    const posts: Array<string> = []
    page.on("request", (request) => void (request.method() === "POST" && posts.push(request.url())))
    await page.reload()
    expect(await page.locator("h1").textContent()).toBe("Organization created")
    expect(posts).toEqual([])

    await page.goto(`${hono}/identity/`)
    expect(await page.locator("main").textContent()).toContain(`Refresh Proof ${slug}`)
    await context.close()
  }, 60_000)

  it("the sign-in page links to a working forgot-password page, under the prefix", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false })
    const page = await context.newPage()
    await page.goto(`${express}/auth/sign-in`)
    await page.getByRole("link", { name: "Forgot password?" }).click()
    await page.waitForURL(`${express}/auth/forgot-password`)
    await page.getByLabel("Email").fill("nobody@example.com")
    await page.getByRole("button", { name: "Send the link" }).click()
    await page.waitForURL(`${express}/auth/forgot-password`)
    expect(await page.locator("h1").textContent()).toBe("Check your email")
    await context.close()
  }, 60_000)
})
