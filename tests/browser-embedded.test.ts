import { serve } from "@hono/node-server"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { type AddressInfo, createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type Browser, chromium, type Page } from "playwright-core"
import { SMTPServer } from "smtp-server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeHost } from "../examples/hono-host/src/app.js"
import { migratedDataDir } from "../packages/server/test/ServerProcess.js"
import { eventuallyDefined } from "./support/poll.js"

/**
 * The identity pages embedded in host apps under a prefix, in headless Chromium with JavaScript off:
 * every link and form action follows the mount (`@core/http` sends it as `X-Forwarded-Prefix`), and
 * the links identity mails follow the mount the host configures (decision 0212). Mail goes to an SMTP
 * server of the test's own.
 */

const CHROMIUM = "/usr/bin/chromium"
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
const hasChromium = existsSync(CHROMIUM)
if (!hasChromium) console.warn(`tests/browser-embedded.test.ts skipped: no Chromium at ${CHROMIUM}`)

const PASSWORD = "correct horse battery staple"
const SECRET = "embedded-host-secret-0123456789abcdef"
const NEW_PASSWORD = "a brand new horse battery staple"
const root = fileURLToPath(new URL("..", import.meta.url))

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })

/** Mail received by the test's SMTP server, by recipient. */
const mails: Array<{ to: string; text: string }> = []
const mailTo = (email: string) =>
  eventuallyDefined(() => mails.filter((mail) => mail.to === email).at(-1), { message: `a mail to ${email}`, timeout: 30_000 })

/**
 * Signed out: sign-in → "Forgot password?" → the mailed link → the new-password form → signed in with
 * the new password, every address under `mount`.
 */
const resetByMail = async (page: Page, origin: string, mount: string, email: string) => {
  await page.goto(`${origin}${mount}/sign-in`)
  await page.getByRole("link", { name: "Forgot password?" }).click()
  await page.waitForURL(`${origin}${mount}/forgot-password`)
  await page.getByLabel("Email").fill(email)
  await page.getByRole("button", { name: "Send the link" }).click()
  await page.waitForURL(`${origin}${mount}/forgot-password`)
  expect(await page.locator("h1").textContent()).toBe("Check your email")

  const link = /https?:\/\/\S+/.exec((await mailTo(email)).text)![0]
  expect(link).toMatch(new RegExp(`^${origin}${mount}/api/auth/reset-password/[A-Za-z0-9_-]{43}\\?callbackURL=`))
  await page.goto(link)
  await page.waitForURL(new RegExp(`^${origin}${mount}/reset-password\\?token=`))
  expect(await page.locator("h1").textContent()).toBe("Choose a new password")
  await page.getByLabel("New password").fill(NEW_PASSWORD)
  await page.getByRole("button", { name: "Change password" }).click()
  await page.waitForURL(`${origin}${mount}/sign-in?reset=1`)
  await page.getByLabel("Email").fill(email)
  await page.getByLabel("Password").fill(NEW_PASSWORD)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.waitForURL(`${origin}${mount}/account`)
  expect(await page.locator("main").textContent()).toContain(email)
}

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
    // Chromium, the Hono host and the Express child start at once: the hook waits for the slowest, not the sum.
    const launched = chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    closers.push(() => launched.then((started) => started.close(), () => undefined))

    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Array<Buffer> = []
        stream.on("data", (chunk: Buffer) => chunks.push(chunk))
        stream.on("end", () => {
          const raw = Buffer.concat(chunks).toString("utf8").replace(/=\r?\n/g, "").replace(/=3D/g, "=")
          mails.push({ to: session.envelope.rcptTo.map((a) => a.address).join(","), text: raw })
          callback()
        })
      }
    })
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve))
    closers.push(() => new Promise<void>((done) => smtp.close(() => done())))
    const SMTP_URL = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`

    const expressPort = await freePort()
    const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "tests/fixtures/express-identity-host.ts"], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: "test",
        PORT: String(expressPort),
        CORE_PUBLIC_URL: `http://127.0.0.1:${expressPort}`,
        CORE_DATA_DIR: await migratedDataDir(join(work, "express")),
        CORE_SECRET: SECRET,
        SMTP_URL
      },
      stdio: ["ignore", "pipe", "inherit"]
    })
    const listening = new Promise<string>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`express host exited with ${code}`)))
      child.stdout.once("data", (data: Buffer) => resolve(`http://127.0.0.1:${data.toString().trim()}`))
    })
    closers.push(() => new Promise<void>((done) => (child.exitCode !== null ? done() : (child.once("exit", () => done()), child.kill("SIGTERM")))))
    // awaited below; until then a failed start must not surface as an unhandled rejection
    for (const started of [launched, listening]) started.catch(() => undefined)

    const honoPort = await freePort()
    hono = `http://127.0.0.1:${honoPort}`
    const host = makeHost({ env: { NODE_ENV: "test", CORE_DATA_DIR: await migratedDataDir(join(work, "hono")), CORE_SECRET: SECRET, CORE_PUBLIC_URL: hono, SMTP_URL } })
    await new Promise<void>((resolve) => {
      const server = serve({ fetch: host.app.fetch, port: honoPort, hostname: "127.0.0.1" }, () => resolve())
      closers.push(() => new Promise<void>((done) => server.close(() => done())), () => host.dispose())
    })
    express = await listening
    browser = await launched

    // Both hosts open their database on the first request (a migrated copy: their migration finds
    // nothing to do): make those requests here, at once and under this hook's timeout, so a loaded
    // machine's slow first open is not a page's 30 s goto.
    const first = await Promise.all([`${hono}/identity/`, `${express}/auth/`].map((page) => fetch(page, { signal: AbortSignal.timeout(200_000) })))
    expect(first.map((response) => response.status)).toEqual([200, 200])
  }, 300_000)

  afterAll(async () => {
    for (const close of closers.reverse()) await close()
    if (work !== "") rmSync(work, { recursive: true, force: true })
  })

  it("Hono (examples/hono-host, /identity): sign-up → signed in, then forgot password → mailed link → reset → signed in, every step under the prefix", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false })
    const page = await context.newPage()
    const posts: Array<string> = []
    page.on("request", (request) => void (request.method() === "POST" && posts.push(new URL(request.url()).pathname)))
    const email = await signUpAndIn(page, hono, "/identity")
    expect(posts).toEqual(["/identity/sign-up", "/identity/sign-out", "/identity/sign-in"])
    await context.close()

    const signedOut = await browser.newContext({ javaScriptEnabled: false })
    await resetByMail(await signedOut.newPage(), hono, "/identity", email)
    await signedOut.close()
  }, 60_000)

  it("Express (@core/http/express, /auth): sign-up → signed in, then forgot password → mailed link → reset → signed in, every step under the prefix", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false })
    const page = await context.newPage()
    const posts: Array<string> = []
    page.on("request", (request) => void (request.method() === "POST" && posts.push(new URL(request.url()).pathname)))
    const email = await signUpAndIn(page, express, "/auth")
    expect(posts).toEqual(["/auth/sign-up", "/auth/sign-out", "/auth/sign-in"])
    await context.close()

    const signedOut = await browser.newContext({ javaScriptEnabled: false })
    await resetByMail(await signedOut.newPage(), express, "/auth", email)
    await signedOut.close()
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
