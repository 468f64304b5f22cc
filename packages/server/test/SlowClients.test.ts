import { mkdtempSync, rmSync } from "node:fs"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { launch, migratedDataDir, ready, stop } from "./ServerProcess.js"

const work = mkdtempSync(join(tmpdir(), "core-slow-clients-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** Write `request` on a fresh connection; answers what came back once the server closed it, and when. */
const exchange = (base: string, request: string) =>
  new Promise<{ readonly head: string; readonly body: string; readonly afterMs: number }>((resolve) => {
    const url = new URL(base)
    const started = performance.now()
    const socket = net.connect(Number(url.port), url.hostname)
    let received = ""
    socket.setEncoding("utf8").on("data", (chunk: string) => (received += chunk))
    socket.on("error", () => undefined)
    socket.on("close", () => {
      const split = received.indexOf("\r\n\r\n")
      resolve({
        head: split === -1 ? received : received.slice(0, split),
        body: split === -1 ? "" : received.slice(split + 4),
        afterMs: Math.round(performance.now() - started)
      })
    })
    socket.write(request)
  })

describe("core-server start with slow or oversized requests", () => {
  it("answers a stalled sign-up body 408 and a head over the limit 431, with envelopes, and keeps serving", async () => {
    // A migrated copy (not `:memory:`, which migrates every domain first): the slow clients are the subject.
    const server = launch(["start"], { PORT: "0", CORE_DATA_DIR: await migratedDataDir(join(work, "data")), CORE_BODY_TIMEOUT_MS: "500" })
    try {
      const base = await ready(server)
      const stalled = await exchange(
        base,
        "POST /api/v1/iam/api/auth/sign-up/email HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"email\":"
      )
      expect(stalled.head).toMatch(/^HTTP\/1\.1 408 /)
      expect(stalled.head.toLowerCase()).toContain("x-content-type-options: nosniff")
      expect(JSON.parse(stalled.body)).toMatchObject({ error: { code: "REQUEST_TIMEOUT", details: null } })
      process.stderr.write(`[slow-clients] stalled body answered 408 after ${stalled.afterMs} ms (CORE_BODY_TIMEOUT_MS=500)\n`)

      const long = await fetch(`${base}/api/v1/iam/api/core/session?q=${"a".repeat(20_000)}`)
      expect([long.status, long.headers.get("content-type")]).toEqual([431, "application/json"])
      expect(await long.json()).toMatchObject({ error: { code: "HEADERS_TOO_LARGE" } })

      const health = await fetch(`${base}/health`)
      expect(health.status).toBe(200)
      expect((await stop(server)).code).toBe(0)
    } finally {
      server.child.kill("SIGKILL")
    }
  }, 180_000)
})
