import { Config as KernelConfig } from "@core/kernel"
import { Effect, Either, Layer, Option, Redacted } from "effect"
import { readFileSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { SMTPServer } from "smtp-server"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { MailConfig } from "../src/Config.js"
import * as MailerLive from "../src/mail/MailerLive.js"
import * as SmtpMailer from "../src/mail/SmtpMailer.js"
import { Mailer } from "../src/mail/Mailer.js"
import { freshEmail, type Harness, linkIn, mailTo, makeHarness, rows, servedPath } from "./AccountsSupport.js"

interface Received {
  readonly from: string | undefined
  readonly to: ReadonlyArray<string>
  readonly raw: string
}

/** A real SMTP server on 127.0.0.1 that keeps what it receives; `refuse` makes it reject recipients. */
const startSmtp = async () => {
  const received: Array<Received> = []
  const state = { refuse: false }
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(_address, _session, callback) {
      callback(state.refuse ? Object.assign(new Error("mailbox unavailable"), { responseCode: 550 }) : null)
    },
    onData(stream, session, callback) {
      const chunks: Array<Buffer> = []
      stream.on("data", (chunk: Buffer) => chunks.push(chunk))
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom === false ? undefined : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((address) => address.address),
          raw: Buffer.concat(chunks).toString("utf8")
        })
        callback()
      })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** `MailerLive` with identity's mail settings read from `env` (as the server reads the environment). */
const mailerFrom = (env: Record<string, string>) =>
  MailerLive.layer.pipe(
    Layer.provide(MailConfig.layerConfig),
    Layer.provide(Layer.setConfigProvider(KernelConfig.provider(env))),
    Layer.orDie
  )

/** The text part of a received message, with quoted-printable soft breaks undone. */
const textOf = (raw: string) => raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=")

describe("SMTP mailer", () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  beforeAll(async () => {
    smtp = await startSmtp()
  })
  afterAll(() => smtp.close())

  it("delivers a message to a real SMTP server", async () => {
    const program = Effect.flatMap(Mailer, (mailer) =>
      mailer.send({ to: "ada@example.com", subject: "Hello", text: "Go to https://core.example.com/x?token=abc" }))
    await Effect.runPromise(Effect.provide(program, SmtpMailer.layer({ url: smtp.url, from: "Core <no-reply@core.example.com>" })))
    const message = smtp.received.at(-1)
    expect(message?.from).toBe("no-reply@core.example.com")
    expect(message?.to).toEqual(["ada@example.com"])
    expect(message?.raw).toContain("Subject: Hello")
    expect(textOf(message?.raw ?? "")).toContain("https://core.example.com/x?token=abc")
  })

  it("is chosen by SMTP_URL, and carries the magic link that then signs in", async () => {
    const h = await makeHarness({ mailer: mailerFrom({ SMTP_URL: smtp.url }) })
    try {
      const email = freshEmail("smtp")
      const response = await h.fetch("/api/auth/sign-in/magic-link", { json: { email } })
      expect(await response.json()).toEqual({ status: true })
      const message = smtp.received.find((item) => item.to.includes(email))
      expect(message?.from).toBe("no-reply@core.example.com")
      expect(message?.raw).toContain("Subject: Your sign-in link")
      const link = linkIn(textOf(message?.raw ?? ""))
      expect(link.pathname).toBe("/api/v1/iam/api/auth/magic-link/verify")
      link.searchParams.delete("callbackURL")
      const verified = await h.fetch(servedPath(link))
      expect(verified.status).toBe(200)
      expect(await verified.json()).toMatchObject({ user: { email, emailVerified: true } })
      expect(await mailTo(h, email)).toEqual([])
    } finally {
      await h.dispose()
    }
  })

  it("a failed delivery does not change the answer, and the log never holds the link", async () => {
    const h = await makeHarness({ mailer: mailerFrom({ SMTP_URL: smtp.url }) })
    smtp.state.refuse = true
    try {
      const email = freshEmail("refused")
      const response = await h.fetch("/api/auth/sign-in/magic-link", { json: { email } })
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ status: true })
      const logged = h.logs.join("\n")
      expect(logged).toContain("mail delivery failed")
      expect(logged).toContain(email)
      expect(logged).not.toContain("token=")
      expect(logged).not.toContain("magic-link/verify")
    } finally {
      smtp.state.refuse = false
      await h.dispose()
    }
  })
})

describe("outbox mailer", () => {
  let h: Harness
  const printed: Array<string> = []
  beforeAll(async () => {
    vi.spyOn(console, "error").mockImplementation((...args: Array<unknown>) => void printed.push(args.join(" ")))
    h = await makeHarness({ env: { NODE_ENV: "development" } })
  })
  afterAll(async () => {
    vi.restoreAllMocks()
    await h.dispose()
  })

  it("stores each message in iam.mail_outbox and, in development, prints its link on stderr", async () => {
    const email = freshEmail("outbox")
    await h.fetch("/api/auth/sign-in/magic-link", { json: { email } })
    const stored = await rows<{ id: string; subject: string; text: string; html: string; sent_at: Date | null }>(h, (sql) =>
      sql`SELECT id, subject, text_body AS text, html_body AS html, sent_at FROM iam.mail_outbox WHERE to_address = ${email}`)
    expect(stored).toEqual([
      { id: expect.stringMatching(/^eml_/), subject: "Your sign-in link", text: expect.any(String), html: expect.any(String), sent_at: null }
    ])
    const link = linkIn(stored[0].text)
    expect(stored[0].html).toContain(link.toString().replace(/&/g, "&amp;"))
    expect(printed.join("\n")).toContain(link.toString())
  })

  it("prints nothing outside development", async () => {
    const quiet = await makeHarness()
    const before = printed.length
    try {
      await quiet.fetch("/api/auth/sign-in/magic-link", { json: { email: freshEmail("quiet") } })
      expect(printed.slice(before).join("\n")).not.toContain("magic-link/verify")
    } finally {
      await quiet.dispose()
    }
  })
})

describe("MailerLive", () => {
  it("names the sender after CORE_PUBLIC_URL's host", () => {
    expect(MailerLive.senderOf("https://core.example.com")).toBe("Core <no-reply@core.example.com>")
  })

  it("keeps mail in the outbox when SMTP_URL is blank", async () => {
    const h = await makeHarness({ mailer: mailerFrom({ SMTP_URL: " " }) })
    try {
      const email = freshEmail("blank-smtp")
      await h.fetch("/api/auth/sign-in/magic-link", { json: { email } })
      expect(await mailTo(h, email)).toHaveLength(1)
    } finally {
      await h.dispose()
    }
  })
})

describe("MailConfig", () => {
  const read = (env: Record<string, string>) =>
    Effect.runSync(Effect.either(Effect.withConfigProvider(MailConfig.config, KernelConfig.provider(env))))

  it("reads SMTP_URL as a redacted value; unset or blank is None", () => {
    const settings = read({ SMTP_URL: "smtps://user:hunter2@mail.example.com:465" })
    expect(Either.map(settings, (value) => Option.map(value.smtpUrl, Redacted.value))).toEqual(
      Either.right(Option.some("smtps://user:hunter2@mail.example.com:465"))
    )
    expect(JSON.stringify(settings)).not.toContain("hunter2")
    expect(read({})).toEqual(Either.right({ smtpUrl: Option.none() }))
    expect(read({ SMTP_URL: "" })).toEqual(Either.right({ smtpUrl: Option.none() }))
  })

  it("names SMTP_URL, why, and the value it got", () => {
    const error = Either.getLeft(read({ SMTP_URL: "http://x" })).pipe(Option.getOrThrow)
    expect(KernelConfig.issuesOf(error)).toEqual([
      { variable: "SMTP_URL", message: "SMTP_URL must be an smtp:// or smtps:// URL (got \"http://x\")" }
    ])
  })

  it("provides explicit values, unset by default", async () => {
    expect(await Effect.runPromise(Effect.provide(MailConfig, MailConfig.layer()))).toEqual({ smtpUrl: Option.none() })
  })

  it("is listed in .env.example", () => {
    const example = readFileSync(new URL("../../../.env.example", import.meta.url), "utf8")
    expect(example).toMatch(/^#? ?SMTP_URL=/m)
  })
})
