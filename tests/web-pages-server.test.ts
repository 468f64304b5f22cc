import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SMTPServer } from "smtp-server"
import { Iam } from "@core/contracts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launch, migratedDataDir, ready, type Running, stop } from "../packages/server/test/ServerProcess.js"
import { eventuallyDefined } from "./support/poll.js"

/**
 * The web pages through the real all-in-one server, as a signed-out browser meets them at every
 * address the server publishes: production settings (no development shortcuts), the static key set,
 * mail over SMTP to a real test server.
 */

const PASSWORD = "correct horse battery staple"
const NEW_PASSWORD = "a brand new passphrase"

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

/** A browser without JavaScript: a cookie jar, same-origin posts, no redirect followed. */
class Visitor {
  readonly cookies = new Map<string, string>()
  constructor(private readonly base: string) {}

  async visit(path: string, form?: Record<string, string>) {
    const url = path.startsWith("http") ? path : `${this.base}${path}`
    const headers = new Headers()
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ")
    if (cookie !== "") headers.set("cookie", cookie)
    if (form !== undefined) {
      headers.set("content-type", "application/x-www-form-urlencoded")
      headers.set("origin", new URL(url).origin)
      headers.set("sec-fetch-site", "same-origin")
    }
    const response = await fetch(url, {
      method: form === undefined ? "GET" : "POST",
      headers,
      redirect: "manual",
      ...(form === undefined ? {} : { body: new URLSearchParams(form).toString() })
    })
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";")
      const at = pair.indexOf("=")
      const value = pair.slice(at + 1)
      if (value === "" || /max-age=0/i.test(line)) this.cookies.delete(pair.slice(0, at))
      else this.cookies.set(pair.slice(0, at), value)
    }
    return {
      status: response.status,
      location: response.headers.get("location"),
      type: response.headers.get("content-type"),
      html: await response.text()
    }
  }

  /** Post the page's first form back with its hidden fields and `fields`. */
  async submit(path: string, fields: Record<string, string>) {
    const page = await this.visit(path)
    const action = /<form method="post" action="([^"]+)"/.exec(page.html)?.[1]?.replaceAll("&amp;", "&")
    const hidden = Object.fromEntries(
      [...page.html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2].replaceAll("&amp;", "&")])
    )
    return this.visit(action ?? path, { ...hidden, ...fields })
  }
}

const h1 = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1]

describe("the web pages through core-server in production settings, signed out", () => {
  const mails: Array<{ to: string; text: string }> = []
  let smtp: SMTPServer
  let server: Running
  let base: string
  let dataDir: string

  beforeAll(async () => {
    smtp = new SMTPServer({
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
    const smtpPort = (smtp.server.address() as { port: number }).port
    const port = await freePort()
    dataDir = mkdtempSync(join(tmpdir(), "core-pages-"))
    server = launch(["start"], {
      NODE_ENV: "production",
      PORT: String(port),
      CORE_PUBLIC_URL: `http://127.0.0.1:${port}`,
      CORE_SECRET: "pages-server-secret-0123456789abcdef0123",
      CORE_STATIC_API_KEY: "pages-static-key-0123456789abcdef0123456789",
      CORE_DATA_DIR: await migratedDataDir(join(dataDir, "data")),
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`
    })
    base = await ready(server)
  }, 180_000)

  afterAll(async () => {
    if (server !== undefined) await stop(server)
    await new Promise<void>((resolve) => smtp?.close(() => resolve()))
    rmSync(dataDir, { recursive: true, force: true })
  })

  const mailTo = (email: string) =>
    eventuallyDefined(() => mails.filter((mail) => mail.to === email).at(-1), { message: `a mail to ${email}`, timeout: 30_000 })

  it("verification_uri_complete, /device and /api/v1/iam/device lead a signed-out browser to sign in and back to the code", async () => {
    const issued = await fetch(`${base}/api/v1/iam/oauth/device/code`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "client_id=core-cli"
    })
    expect(issued.status).toBe(200)
    const { user_code: userCode, verification_uri_complete: complete, verification_uri: plain } = await issued.json() as Record<string, string>
    expect(complete).toBe(`${base}/api/v1/iam/device?user_code=${userCode}`)
    expect(plain).toBe(`${base}/api/v1/iam/device`)

    for (const [address, prefix] of [[complete, "/api/v1/iam"], [`${base}/device?user_code=${userCode}`, ""]] as const) {
      const visitor = new Visitor(base)
      const devicePath = `${prefix}/device?user_code=${userCode}`
      const first = await visitor.visit(address)
      expect([first.status, first.location]).toEqual([303, `${prefix}/sign-in?next=${encodeURIComponent(devicePath)}`])
      const signIn = await visitor.visit(first.location!)
      expect([signIn.status, h1(signIn.html)]).toEqual([200, "Sign in"])
      expect(signIn.html).toContain("Sign in to connect a device")
      const signUpLink = /<a href="([^"]+)">Create one<\/a>/.exec(signIn.html)![1].replaceAll("&amp;", "&")
      expect(signUpLink).toBe(`${prefix}/sign-up?next=${encodeURIComponent(devicePath)}`)
      const email = `device-${prefix === "" ? "root" : "gw"}-${Date.now().toString(36)}@example.com`
      const signedUp = await visitor.submit(signUpLink, { name: "Dev Ice", email, password: PASSWORD })
      expect([signedUp.status, signedUp.location]).toEqual([303, devicePath])
      const back = await visitor.visit(signedUp.location!)
      expect([back.status, h1(back.html)]).toEqual([200, "Connect Core CLI?"])
      expect(back.html).toContain(`<p class="code" aria-label="Code">${userCode}</p>`)
    }

    const bare = await new Visitor(base).visit(plain)
    expect([bare.status, bare.location]).toEqual([303, "/api/v1/iam/sign-in?next=%2Fapi%2Fv1%2Fiam%2Fdevice"])
  }, 60_000)

  it("every page, at the root and under /api/v1/iam, answers a signed-out browser with HTML or a redirect to sign-in, never 401 JSON", async () => {
    for (const route of Object.values(Iam.WebRoutes)) {
      if (route.method !== "GET") continue
      for (const prefix of ["", "/api/v1/iam"]) {
        const answer = await new Visitor(base).visit(`${prefix}${route.path}`)
        const expected = answer.status === 303
          ? [303, `${prefix}/sign-in?next=${encodeURIComponent(`${prefix}${route.path}`)}`]
          : [route === Iam.WebRoutes.resetPasswordPage ? 400 : 200, "text/html; charset=utf-8"]
        expect([`${prefix}${route.path}`, answer.status, answer.status === 303 ? answer.location : answer.type])
          .toEqual([`${prefix}${route.path}`, ...expected])
      }
    }
  })

  it("/sign-in and /api/v1/iam/sign-in answer the form to a signed-out browser", async () => {
    for (const path of ["/sign-in", "/api/v1/iam/sign-in", "/sign-up", "/api/v1/iam/sign-up", "/forgot-password", "/api/v1/iam/forgot-password"]) {
      const answer = await new Visitor(base).visit(path)
      expect([path, answer.status, answer.type]).toEqual([path, 200, "text/html; charset=utf-8"])
    }
  })

  it("forgot password: the mailed link leads a signed-out browser to a reset page, and the new password signs in", async () => {
    const email = `reset-${Date.now().toString(36)}@example.com`
    expect((await new Visitor(base).submit("/sign-up", { name: "Re Set", email, password: PASSWORD })).status).toBe(303)

    const visitor = new Visitor(base)
    const signIn = await visitor.visit("/sign-in")
    const forgot = /<a href="([^"]+)">Forgot password\?<\/a>/.exec(signIn.html)?.[1]
    expect(forgot).toBe("/forgot-password")
    const requested = await visitor.submit(forgot!, { email })
    expect([requested.status, h1(requested.html)]).toEqual([200, "Check your email"])

    const link = /https?:\/\/\S+/.exec((await mailTo(email)).text)![0]
    expect(link).toMatch(new RegExp(`^${base}/api/v1/iam/api/auth/reset-password/[A-Za-z0-9_-]{43}\\?callbackURL=`))
    const reader = new Visitor(base)
    const landing = await reader.visit(link)
    expect(landing.status).toBe(302)
    const target = new URL(landing.location!)
    expect(target.pathname).toBe("/reset-password")
    const form = await reader.visit(landing.location!)
    expect([form.status, h1(form.html)]).toEqual([200, "Choose a new password"])
    const done = await reader.submit(landing.location!, { password: NEW_PASSWORD })
    expect([done.status, done.location]).toEqual([303, "/sign-in?reset=1"])
    expect((await reader.visit(done.location!)).html).toContain("Your password has been changed. Sign in with the new one.")
    const signedIn = await reader.submit("/sign-in", { email, password: NEW_PASSWORD })
    expect([signedIn.status, signedIn.location]).toEqual([303, "/account"])
    expect((await new Visitor(base).submit("/sign-in", { email, password: PASSWORD })).status).toBe(401)

    const spent = await new Visitor(base).visit(link)
    const expired = await new Visitor(base).visit(spent.location!)
    expect([expired.status, h1(expired.html)]).toEqual([400, "This reset link has expired"])
    expect(expired.html).toContain(`<a href="/forgot-password">Ask for a new link</a>`)
  }, 60_000)

  it("the API's reset request without redirectTo mails a link to the reset page; a bogus token gets a clear page", async () => {
    const email = `api-reset-${Date.now().toString(36)}@example.com`
    expect((await new Visitor(base).submit("/sign-up", { name: "Api Reset", email, password: PASSWORD })).status).toBe(303)
    const asked = await fetch(`${base}/api/v1/iam/api/auth/request-password-reset`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email })
    })
    expect(asked.status).toBe(200)
    const link = /https?:\/\/\S+/.exec((await mailTo(email)).text)![0]
    const landing = await new Visitor(base).visit(link)
    expect(new URL(landing.location!).pathname).toBe("/reset-password")

    const bogus = await new Visitor(base).visit(`${base}/api/v1/iam/api/auth/reset-password/bogus-token?callbackURL=%2Freset-password`)
    expect(bogus.status).toBe(302)
    const page = await new Visitor(base).visit(bogus.location!)
    expect([page.status, page.type, h1(page.html)]).toEqual([400, "text/html; charset=utf-8", "This reset link has expired"])
    const posted = await new Visitor(base).submit("/reset-password?token=bogus-token", { password: NEW_PASSWORD })
    expect([posted.status, h1(posted.html)]).toEqual([400, "This reset link has expired"])
  }, 60_000)

  it("the printed address answers a page: / signed out says what Core is, with sign-up and sign-in", async () => {
    const answer = await new Visitor(base).visit("/")
    expect([answer.status, answer.type, h1(answer.html)]).toEqual([200, "text/html; charset=utf-8", "Welcome to Core"])
    expect(answer.html).toContain(`href="/sign-up"`)
    const signedIn = new Visitor(base)
    const email = `home-${Date.now().toString(36)}@example.com`
    expect((await signedIn.submit("/sign-up", { name: "Ho Me", email, password: PASSWORD })).status).toBe(303)
    const home = await signedIn.visit("/")
    expect([home.status, h1(home.html)]).toEqual([200, "Hello, Ho Me"])
  })

  it("send-verification-email needs no session at the gateway", async () => {
    const answer = await fetch(`${base}/api/v1/iam/api/auth/send-verification-email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "nobody@example.com" })
    })
    expect([answer.status, await answer.json()]).toEqual([200, { status: true }])
  })
})
