import { Effect } from "effect"
import * as http from "node:http"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import * as Startup from "../src/Startup.js"
import { Migrations } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { eventually, eventuallyDefined } from "@core/kernel/testing/poll"
import { Exit, Scope } from "effect"
import pg from "pg"
import { launch, logLines, migratedDataDir, ready, type Running, stop } from "./ServerProcess.js"

const work = mkdtempSync(join(tmpdir(), "core-startup-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const text = (status: number, body: string) => (_: http.IncomingMessage, response: http.ServerResponse) => {
  response.writeHead(status, { "content-type": "text/plain" })
  response.end(body)
}

const serve = async (gate: Startup.Gate) => {
  const server = http.createServer(gate.listener)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address() as { port: number }
  return {
    base: `http://127.0.0.1:${address.port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  }
}

describe("Startup gate", () => {
  it("answers the probes at once, holds other requests until open, then serves them in order", async () => {
    const gate = Startup.make({ probes: text(503, "starting"), waitMs: 10_000 })
    const server = await serve(gate)
    const probe = await fetch(`${server.base}/ready?x=1`)
    expect([probe.status, await probe.text()]).toEqual([503, "starting"])
    const first = fetch(`${server.base}/api/v1/a`).then(async (response) => [response.status, await response.text()])
    const second = fetch(`${server.base}/api/v1/b`).then(async (response) => [response.status, await response.text()])
    await eventually(() => gate.waiting(), (waiting) => waiting === 2, { message: "two requests held by the gate", interval: 10 })
    gate.open((request, response) => text(200, `served ${request.url}`)(request, response))
    expect(await Promise.all([first, second])).toEqual([[200, "served /api/v1/a"], [200, "served /api/v1/b"]])
    expect(gate.waiting()).toBe(0)
    await server.close()
  })

  it("answers 503 STARTING with Retry-After when the server is not ready within the wait", async () => {
    const gate = Startup.make({ probes: text(200, "ok"), waitMs: 200 })
    const server = await serve(gate)
    const response = await fetch(`${server.base}/api/v1/iam/api/core/session`)
    expect([response.status, response.headers.get("retry-after"), response.headers.get("content-type")]).toEqual([
      503,
      "1",
      "application/json"
    ])
    const body = (await response.json()) as { error: { requestId: string } }
    expect(body).toEqual({
      error: { code: "STARTING", message: "The server is starting; try again shortly", requestId: body.error.requestId, details: null }
    })
    expect(response.headers.get("x-request-id")).toBe(body.error.requestId)
    expect(gate.waiting()).toBe(0)
    await server.close()
  })
})

describe("Startup gate on shutdown", () => {
  it("answers every waiting request 503 STARTING at once when the server stops before it was ready", async () => {
    const gate = Startup.make({ probes: text(200, "ok"), waitMs: 60_000 })
    const server = await serve(gate)
    const waiting = fetch(`${server.base}/api/v1/a`).then((response) => [response.status, response.headers.get("retry-after")])
    await eventually(() => gate.waiting(), (waiting) => waiting === 1, { message: "a request held by the gate", interval: 10 })
    gate.close()
    expect(await waiting).toEqual([503, "60"])
    await server.close()
  })
})

describe("core-server start while starting", () => {
  it("holds an API call made as soon as /health answers until the server is ready, then answers it (never 502)", async () => {
    const server = launch(["start"], { PORT: "0", CORE_DATA_DIR: join(work, "fresh"), CORE_STARTUP_WAIT_MS: "120000" })
    try {
      const base = await startingAt(server)
      expect((await fetch(`${base}/health`)).status).toBe(200)
      const readyBefore = (await fetch(`${base}/ready`)).status
      const session = await fetch(`${base}/api/v1/iam/api/core/session`)
      expect([session.status, ((await session.json()) as { error: { code: string } }).error.code]).toEqual([401, "UNAUTHORIZED"])
      process.stderr.write(`[startup] /ready was ${readyBefore} when the API call was made\n`)
      expect((await stop(server)).code).toBe(0)
    } finally {
      server.child.kill("SIGKILL")
    }
  }, 180_000)
})

describe("core-server start on PORT=0", () => {
  it("without CORE_PUBLIC_URL, links and redirects point at the bound port (not http://localhost:0)", async () => {
    const server = launch(["start"], { PORT: "0", CORE_DATA_DIR: await migratedDataDir(join(work, "port-0")) })
    try {
      const base = await ready(server)
      const port = new URL(base).port
      const response = await fetch(`${base}/api/v1/iam/api/auth/sign-up/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: `http://localhost:${port}` },
        body: JSON.stringify({
          name: "Port Zero",
          email: "port-zero@example.com",
          password: "a long enough password",
          callbackURL: `http://localhost:${port}/welcome`
        })
      })
      const body = (await response.json()) as { user?: { email: string }; code?: string }
      expect([response.status, body.user?.email ?? body.code]).toEqual([200, "port-zero@example.com"])
      expect((await stop(server)).code).toBe(0)
    } finally {
      server.child.kill("SIGKILL")
    }
  }, 180_000)
})

/** Poll the log until the server has bound its port (`starting`), and answer its base URL. */
const startingAt = async (server: Running, timeoutMs = 120_000): Promise<string> => {
  const port = await eventuallyDefined(() => logLines(server.output.stdout).find((line) => line.message === "starting")?.port, {
    message: () => `core-server to bind its port\n${server.output.stdout}\n${server.output.stderr}`,
    timeout: timeoutMs,
    interval: 10
  })
  return `http://127.0.0.1:${String(port)}`
}

/**
 * A scratch PostgreSQL database whose migration lock this test holds: a server started on it
 * listens, then waits on the lock in its migrations — held in its start for as long as the test
 * wants, without a delay.
 */
const heldDatabase = async () => {
  const scope = Effect.runSync(Scope.make())
  const url = await Effect.runPromise(Scope.extend(TestDatabase.scratchDatabase(TestDatabase.url!), scope))
  const holder = new pg.Client({ connectionString: url })
  await holder.connect()
  await holder.query("SELECT pg_advisory_lock($1)", [Migrations.lockKey])
  return {
    url,
    release: () => holder.query("SELECT pg_advisory_unlock($1)", [Migrations.lockKey]),
    close: async () => {
      await holder.end()
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}

const REQUIRED = "Authentication required: send a session token (Authorization: Bearer <token>, or the core.session_token cookie) " +
  "or an API key (x-api-key: core_<key>)"

describe.runIf(TestDatabase.url !== undefined)("core-server start held in its migrations (PostgreSQL)", () => {
  it("a request sent while it starts waits for it (by default), then gets its normal answer", async () => {
    const database = await heldDatabase()
    const server = launch(["start"], { PORT: "0", DATABASE_URL: database.url })
    try {
      const base = await startingAt(server)
      expect((await fetch(`${base}/health`)).status).toBe(200)
      let settled = false
      const waiting = fetch(`${base}/api/v1/platforms`).then(async (response) => {
        settled = true
        return [response.status, ((await response.json()) as { error: { message: string } }).error.message]
      })
      const probe = await fetch(`${base}/ready`)
      expect([probe.status, await probe.json()]).toEqual([503, { status: "starting", checks: { database: "starting" } }])
      expect(settled).toBe(false)
      await database.release()
      expect(await waiting).toEqual([401, REQUIRED])
      expect((await fetch(`${base}/ready`)).status).toBe(200)
      expect((await stop(server)).code).toBe(0)
    } finally {
      server.child.kill("SIGKILL")
      await database.close()
    }
  }, 180_000)

  it("answers 503 STARTING with Retry-After once CORE_STARTUP_WAIT_MS passes", async () => {
    const database = await heldDatabase()
    const server = launch(["start"], { PORT: "0", DATABASE_URL: database.url, CORE_STARTUP_WAIT_MS: "1000" })
    try {
      const base = await startingAt(server)
      const response = await fetch(`${base}/api/v1/platforms`)
      expect([response.status, response.headers.get("retry-after"), ((await response.json()) as { error: { code: string } }).error.code])
        .toEqual([503, "1", "STARTING"])
      await database.release()
      await ready(server)
      expect((await stop(server)).code).toBe(0)
    } finally {
      server.child.kill("SIGKILL")
      await database.close()
    }
  }, 180_000)
})
