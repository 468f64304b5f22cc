import { execFileSync } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launch, logLines, ready, run, type Running, stop } from "../packages/server/test/ServerProcess.js"
import { eventually } from "./support/poll.js"

const SLOW = 180_000
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const work = mkdtempSync(join(tmpdir(), "core-server-"))
const dataDir = join(work, "data")
const lockFile = join(dataDir, "core.lock")

afterAll(() => rmSync(work, { recursive: true, force: true }))

describe("core-server start", () => {
  let server: Running
  let base: string

  beforeAll(async () => {
    server = launch(["start"], { PORT: "0", CORE_DATA_DIR: dataDir })
    base = await ready(server)
  }, SLOW)

  afterAll(() => {
    server.child.kill("SIGKILL")
  })

  it("answers /health with ok as text/plain, with the security headers", async () => {
    const response = await fetch(`${base}/health`)
    expect([response.status, response.headers.get("content-type"), await response.text()]).toEqual([200, "text/plain", "ok"])
    expect(response.headers.get("x-content-type-options")).toBe("nosniff")
    expect(response.headers.get("x-request-id")).toMatch(UUID)
  })

  it("ran every domain's migrations before listening", () => {
    const messages = logLines(server.output.stdout).map((line) => [line.message, line.schema])
    expect(messages).toContainEqual(["migration applied", "registry"])
    expect(messages.findIndex(([message]) => message === "migration applied")).toBeLessThan(
      messages.findIndex(([message]) => message === "listening")
    )
  })

  it("logs each migration once, in one wording", () => {
    const lines = logLines(server.output.stdout).filter((line) => /migration/i.test(String(line.message)))
    expect(new Set(lines.map((line) => line.message))).toEqual(new Set(["migration applied"]))
    const applied = lines.map((line) => `${String(line.schema)}/${String(line.migration)}`)
    expect(applied).toContain("iam/0001_identity")
    expect(applied).toContain("registry/0001_platforms")
    expect(new Set(applied).size).toBe(applied.length)
  })

  it("prints the development mail line on stderr: recipient and subject, then the link", async () => {
    const response = await fetch(`${base}/api/v1/iam/api/auth/sign-in/magic-link`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "mail-line@example.com" })
    })
    expect([response.status, await response.json()]).toEqual([200, { status: true }])
    await eventually(() => server.output.stderr, (stderr) => stderr.includes("[core] mail to mail-line@example.com"), {
      message: "the mail line on stderr",
      interval: 20
    })
    const lines = server.output.stderr.split("\n")
    const at = lines.indexOf("[core] mail to mail-line@example.com: Your sign-in link")
    expect(at).toBeGreaterThanOrEqual(0)
    expect(lines[at + 1]).toMatch(/^ {2}http:\/\/\S+\/api\/v1\/iam\/api\/auth\/magic-link\/verify\?token=\S+$/)
  })

  it("answers /ready with the database check", async () => {
    const response = await fetch(`${base}/ready`)
    expect([response.status, await response.json()]).toEqual([200, { status: "ready", checks: { database: "ok" } }])
  })

  it("answers an unknown /api/v1 prefix with the 404 envelope, the request id and the security headers", async () => {
    const response = await fetch(`${base}/api/v1/nope?token=x`, { headers: { "x-request-id": "e2e-404" } })
    expect(response.status).toBe(404)
    expect(response.headers.get("content-type")).toBe("application/json")
    expect(response.headers.get("x-request-id")).toBe("e2e-404")
    expect(response.headers.get("x-content-type-options")).toBe("nosniff")
    expect(response.headers.get("x-frame-options")).toBe("DENY")
    expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin")
    expect(await response.json()).toEqual({
      error: { code: "NOT_FOUND", message: "No route for /api/v1/nope", requestId: "e2e-404", details: null }
    })
  })

  it("logs one JSON line per request: method, path, status, duration, request id", async () => {
    await fetch(`${base}/api/v1/nope`, { method: "DELETE", headers: { "x-request-id": "e2e-log" } })
    const lines = await eventually(() => logLines(server.output.stdout).filter((line) => line.requestId === "e2e-log"), (found) => found.length > 0, {
      message: "the request's log line"
    })
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ level: "info", message: "request", method: "DELETE", path: "/api/v1/nope", status: 404 })
    expect(typeof lines[0].durationMs).toBe("number")
    expect(typeof lines[0].timestamp).toBe("string")
  })

  it("warns at start that the development bypass is on, saying what it lets through and what still answers 401", async () => {
    const warning = logLines(server.output.stdout).find((line) => line.level === "warn")
    expect(warning?.message).toBe(
      "CORE_STATIC_API_KEY is not set: development bypass on. The gateway passes requests without credentials on with no identity " +
        "instead of answering 401 itself; that opens only POST /api/v1/iam/api/core/apikey/validate to anyone, and unknown /api paths " +
        "answer 404 instead of 401. Every route that needs a caller (/api/v1/platforms, /mcp, …) still answers 401 without a session " +
        "token or an API key, presented credentials are checked as always, and there is no service key. Set CORE_STATIC_API_KEY to " +
        "turn it off (required when NODE_ENV=production)"
    )
    const required = "Authentication required: send a session token (Authorization: Bearer <token>, or the core.session_token cookie) " +
      "or an API key (x-api-key: core_<key>)"
    const answer = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(`${base}${path}`, init)
      const body = (await response.json()) as { error?: { code: string; message: string } }
      return [response.status, body.error?.code ?? "answered", body.error?.message ?? "answered"]
    }
    expect(await answer("/api/v1/platforms")).toEqual([401, "UNAUTHORIZED", required])
    const mcp = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })
    })
    expect([mcp.status, JSON.stringify(await mcp.json())]).toEqual([401, expect.stringContaining(required)])
    // Open to anyone: an unknown key gets the validation's own verdict, not "Authentication required".
    const validated = await answer("/api/v1/iam/api/core/apikey/validate", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ key: `core_${"a".repeat(43)}` })
    })
    expect(validated).toEqual([401, "UNAUTHORIZED", "Invalid API key"])
    expect((await answer("/api/v1/no-such-service"))[0]).toBe(404)
    expect(await answer("/api/v1/iam/api/core/session")).toEqual([401, "UNAUTHORIZED", "Invalid or expired session"])
    expect((await fetch(`${base}/api/v1/iam/api/core/session`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401)
  })

  it("refuses to start in production without a static key, naming the variable", async () => {
    const finished = await run(["start"], { PORT: "0", NODE_ENV: "production", CORE_SECRET: "p".repeat(40), CORE_DATA_DIR: ":memory:" })
    expect(finished.code).toBe(1)
    expect(finished.stderr).toContain("CORE_STATIC_API_KEY is required when NODE_ENV=production")
  })

  it("prints the first screen on stderr with the bound port, and only JSON on stdout", () => {
    const port = new URL(base).port
    expect(server.output.stderr).toContain(`Local:     http://localhost:${port}`)
    expect(server.output.stderr).toContain(`open http://localhost:${port}/sign-up to create an account and an organization`)
    expect(server.output.stderr).toContain(`then CORE_API_URL=http://localhost:${port} npx core login to sign the CLI in`)
    for (const line of server.output.stdout.split("\n").filter((text) => text !== "")) {
      expect(() => JSON.parse(line)).not.toThrow()
    }
  })

  it("refuses a second server on the same data directory, naming the directory and the holder", async () => {
    const second = await run(["start"], { PORT: "0", CORE_DATA_DIR: dataDir })
    expect(second.code).toBe(1)
    expect(second.stderr).toContain(`core-server: Data directory ${dataDir} is in use by process ${server.child.pid}`)
  }, SLOW)

  it("refuses a backup while the server holds the data directory", async () => {
    const backup = await run(["backup", join(work, "busy.tar.gz")], { CORE_DATA_DIR: dataDir })
    expect(backup.code).toBe(1)
    expect(backup.stderr).toContain(`is in use by process ${server.child.pid}`)
    expect(existsSync(join(work, "busy.tar.gz"))).toBe(false)
  }, SLOW)

  it("exits 0 on SIGTERM, logs the shutdown and releases the data directory", async () => {
    expect(existsSync(lockFile)).toBe(true)
    const finished = await stop(server, "SIGTERM")
    expect([finished.code, finished.signal]).toEqual([0, null])
    expect(logLines(finished.stdout).map((line) => line.message).slice(-3)).toEqual(["shutting down", "requests drained", "stopped"])
    expect(existsSync(lockFile)).toBe(false)
  }, SLOW)
})

describe("core-server on an existing data directory", () => {
  it("starts again on the same directory, refuses a taken PORT, and exits 0 on SIGINT", async () => {
    const again = launch(["start"], { PORT: "0", CORE_DATA_DIR: dataDir })
    try {
      const base = await ready(again)
      expect(await (await fetch(`${base}/ready`)).json()).toEqual({ status: "ready", checks: { database: "ok" } })
      const port = new URL(base).port
      const copy = join(work, "copy")
      cpSync(dataDir, copy, { recursive: true, filter: (path) => !path.endsWith("core.lock") })
      const clash = await run(["start"], { PORT: port, CORE_DATA_DIR: copy })
      expect(clash.code).toBe(1)
      expect(clash.stderr).toContain(`core-server: PORT ${port} is already in use`)
      const finished = await stop(again, "SIGINT")
      expect(finished.code).toBe(0)
    } finally {
      again.child.kill("SIGKILL")
    }
  }, SLOW)

  it("migrates and exits", async () => {
    const migrated = await run(["migrate"], { CORE_DATA_DIR: dataDir })
    expect(migrated.code).toBe(0)
    expect(logLines(migrated.stdout).at(-1)).toMatchObject({ message: "migrations done", applied: 0 })
  }, SLOW)

  it("backs up and restores the embedded database, and a server starts on the restored copy", async () => {
    const file = join(work, "backups", "core.tar.gz")
    const backup = await run(["backup", file], { CORE_DATA_DIR: dataDir })
    expect(backup.code).toBe(0)
    expect(statSync(file).size).toBeGreaterThan(1_000)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(backup.stderr).toContain(
      `core-server: ${file} does not hold CORE_SECRET (kept in ${join(dataDir, "secret")}): keep that secret with the backup, the data is unreadable without it.`
    )
    const members = execFileSync("tar", ["tzf", file], { encoding: "utf8" }).split("\n").filter((name) => name !== "")
    expect(members).toContain("PG_VERSION")
    expect(members).toContain("core-backup.json")
    expect(members.filter((name) => name.startsWith("/") || name.split("/").includes(".."))).toEqual([])

    const restored = join(work, "restored")
    const otherSecret = await run(["restore", file], { CORE_DATA_DIR: restored })
    expect(otherSecret.code).toBe(1)
    expect(otherSecret.stderr).toContain(`core-server: ${file} was written under another CORE_SECRET, without which its data is unreadable`)
    expect(existsSync(join(restored, "pgdata"))).toBe(false)

    cpSync(join(dataDir, "secret"), join(restored, "secret"))
    const restore = await run(["restore", file], { CORE_DATA_DIR: restored })
    expect(restore.code).toBe(0)
    expect(existsSync(join(restored, "pgdata", "PG_VERSION"))).toBe(true)
    expect(existsSync(join(restored, "pgdata", "core-backup.json"))).toBe(false)

    const unconfirmed = await run(["restore", file], { CORE_DATA_DIR: restored })
    expect([unconfirmed.code, unconfirmed.stderr]).toEqual([
      2,
      `core-server: restore replaces the database in ${restored} with ${file}; run it again with --yes to confirm\nRun core-server --help for usage.\n`
    ])
    const confirmed = await run(["restore", file, "--yes"], { CORE_DATA_DIR: restored })
    expect(confirmed.code).toBe(0)
    const kept = readdirSync(restored).filter((name) => name.startsWith("pgdata.before-restore-"))
    expect(kept).toHaveLength(1)
    expect(existsSync(join(restored, kept[0], "PG_VERSION"))).toBe(true)
    expect(confirmed.stderr).toContain(`core-server: the database it replaced is kept in ${join(restored, kept[0])}`)

    const server = launch(["start"], { PORT: "0", CORE_DATA_DIR: restored })
    try {
      const base = await ready(server)
      expect((await fetch(`${base}/ready`)).status).toBe(200)
      expect((await stop(server)).code).toBe(0)
    } finally {
      server.child.kill("SIGKILL")
    }
  }, SLOW)

  it("refuses to restore a file that is not a backup, leaving the database alone", async () => {
    const restore = await run(["restore", join(work, "missing.tar.gz")], { CORE_DATA_DIR: dataDir })
    expect(restore.code).toBe(1)
    expect(restore.stderr).toContain(`core-server: Cannot read ${join(work, "missing.tar.gz")}`)
    expect(existsSync(join(dataDir, "pgdata", "PG_VERSION"))).toBe(true)
  }, SLOW)
})
