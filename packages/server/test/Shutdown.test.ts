import { randomUUID } from "node:crypto"
import * as http from "node:http"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { launch, logLines, migratedDataDir, ready, stop } from "./ServerProcess.js"

const SLOW = 180_000
const work = mkdtempSync(join(tmpdir(), "core-shutdown-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

interface Answer {
  readonly status: number
  readonly body: string
}

/**
 * Send a sign-up with `Expect: 100-continue`: `accepted` settles once the server has read the head
 * (it answered 100 Continue), and the body is sent then; `answered` is the final answer.
 */
const signUp = (base: string, email: string) => {
  const body = JSON.stringify({ email, password: "correct horse battery staple", name: "Shutdown" })
  let accept: () => void = () => undefined
  const accepted = new Promise<void>((resolve) => (accept = resolve))
  const answered = new Promise<Answer>((resolve, reject) => {
    const request = http.request(`${base}/api/v1/iam/api/auth/sign-up/email`, {
      method: "POST",
      agent: false,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), expect: "100-continue" }
    })
    request.on("continue", () => {
      request.end(body)
      accept()
    })
    request.on("response", (response) => {
      let text = ""
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk)).on("end", () => resolve({ status: response.statusCode ?? 0, body: text }))
    })
    request.on("error", reject)
  })
  return { accepted, answered }
}

const refused = (base: string) =>
  fetch(`${base}/health`).then(() => "answered", (error: { cause?: { code?: string } }) => error.cause?.code ?? "failed")

const databases: ReadonlyArray<readonly [string, Record<string, string> | undefined]> = [
  ["PGlite", { CORE_DATA_DIR: join(work, "data") }],
  ["PostgreSQL", process.env.CORE_TEST_DATABASE_URL === undefined ? undefined : { DATABASE_URL: process.env.CORE_TEST_DATABASE_URL }]
]

describe("core-server start on SIGTERM", () => {
  for (const [name, env] of databases) {
    it.skipIf(env === undefined)(`${name}: lets 8 sign-ups in flight finish with their normal answer, then refuses connections`, async () => {
      const dataDir: Record<string, string> = env?.CORE_DATA_DIR === undefined ? {} : { CORE_DATA_DIR: await migratedDataDir(env.CORE_DATA_DIR) }
      const server = launch(["start"], { PORT: "0", CORE_RATE_LIMIT_AUTH_PER_MINUTE: "1000", ...env, ...dataDir })
      try {
        const base = await ready(server)
        const run = randomUUID().slice(0, 8)
        const flights = Array.from({ length: 8 }, (_, index) => signUp(base, `shutdown-${run}-${index}@example.com`))
        await Promise.all(flights.map((flight) => flight.accepted))
        server.child.kill("SIGTERM")
        const answers = await Promise.all(flights.map((flight) => flight.answered))
        expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200))
        for (const [index, answer] of answers.entries()) {
          expect(JSON.parse(answer.body)).toMatchObject({ user: { email: `shutdown-${run}-${index}@example.com` } })
        }
        expect(await refused(base)).toBe("ECONNREFUSED")
        const finished = await server.exited
        expect([finished.code, finished.signal]).toEqual([0, null])
        const lines = logLines(finished.stdout)
        expect(lines.filter((line) => line.level === "error")).toEqual([])
        const messages = lines.map((line) => line.message)
        expect(messages.slice(-2)).toEqual(["requests drained", "stopped"])
        expect(messages.indexOf("shutting down")).toBeLessThan(messages.indexOf("requests drained"))
        const at = (message: string) => Date.parse(String(lines.find((line) => line.message === message)!.timestamp))
        process.stderr.write(
          `[shutdown ${name}] in flight at SIGTERM: ${String(lines.find((line) => line.message === "shutting down")!.inFlight)}, ` +
            `drained in ${String(lines.find((line) => line.message === "requests drained")!.durationMs)} ms, ` +
            `"shutting down" → "stopped" ${at("stopped") - at("shutting down")} ms\n`
        )
      } finally {
        server.child.kill("SIGKILL")
      }
    }, SLOW)
  }

  it("cuts requests still running after CORE_SHUTDOWN_GRACE_MS and still exits 0", async () => {
    // A migrated copy (not `:memory:`, which migrates every domain first): the shutdown is the subject.
    const server = launch(["start"], { PORT: "0", CORE_DATA_DIR: await migratedDataDir(join(work, "grace")), CORE_SHUTDOWN_GRACE_MS: "300" })
    try {
      const base = await ready(server)
      const socket = await new Promise<import("node:net").Socket>((resolve) => {
        const request = http.request(`${base}/api/v1/iam/api/auth/sign-up/email`, {
          method: "POST",
          agent: false,
          headers: { "content-type": "application/json", "content-length": "100", expect: "100-continue" }
        })
        request.on("continue", () => resolve(request.socket!))
        request.on("error", () => undefined)
      })
      const finished = await stop(server)
      expect(finished.code).toBe(0)
      expect(logLines(finished.stdout).find((line) => line.message === "requests drained")).toMatchObject({ cut: 1 })
      socket.destroy()
    } finally {
      server.child.kill("SIGKILL")
    }
  }, SLOW)
})
