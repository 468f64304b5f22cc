import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { launch, logLines, migratedDataDir, ready, run, stop } from "../packages/server/test/ServerProcess.js"
import { eventually } from "./support/poll.js"

/**
 * `core-server` as its configuration and command line make it: .env and --port, Redis down, help,
 * usage errors and bad configuration (split from tests/server.test.ts, which keeps the first start
 * and the data directory's life, so that the two halves run on both workers; decision 0626).
 */
const SLOW = 180_000
const work = mkdtempSync(join(tmpdir(), "core-server-config-"))

afterAll(() => rmSync(work, { recursive: true, force: true }))

describe("core-server configuration", () => {
  it("loads .env from the working directory (the environment wins) and takes start --port over PORT", async () => {
    const project = join(work, "project")
    const envDataDir = join(work, "from-dotenv")
    mkdirSync(project, { recursive: true })
    // Migrated already: this test is about where the directory comes from, not about a first start.
    await migratedDataDir(envDataDir)
    writeFileSync(join(project, ".env"), `CORE_DATA_DIR=${envDataDir}\nPORT=not-a-port\nLOG_LEVEL=debug\n`)
    const server = launch(["start", "--port", "0"], { PORT: "also-not-a-port", LOG_LEVEL: "info" }, { cwd: project })
    try {
      const base = await ready(server)
      expect((await fetch(`${base}/ready`)).status).toBe(200)
      expect(server.output.stderr).toContain(`embedded PostgreSQL in ${envDataDir}`)
      expect(existsSync(join(envDataDir, "pgdata", "PG_VERSION"))).toBe(true)
      expect(logLines(server.output.stdout).some((line) => line.level === "debug")).toBe(false)
      expect((await stop(server)).code).toBe(0)
    } finally {
      server.child.kill("SIGKILL")
    }
  }, SLOW)
})

describe("core-server with Redis down", () => {
  it("answers /ready 200 degraded, naming redis, and serves the API on the in-process fallback", async () => {
    // A migrated copy: the database is not what this test is about, and a fresh one migrates for seconds.
    const server = launch(["start"], { PORT: "0", CORE_DATA_DIR: await migratedDataDir(join(work, "redis-down")), REDIS_URL: "redis://127.0.0.1:1" })
    try {
      const base = await ready(server)
      const answer = await eventually(async () => {
        const response = await fetch(`${base}/ready`)
        return { status: response.status, body: await response.json() }
      }, (ready) => ready.status !== 503, { message: "/ready to answer other than 503", interval: 100 })
      expect([answer.status, answer.body]).toEqual([200, { status: "degraded", checks: { database: "ok", redis: "error" } }])
      const session = await fetch(`${base}/api/v1/iam/api/core/session`)
      expect(session.status).toBe(401)
      expect((await stop(server)).code).toBe(0)
    } finally {
      server.child.kill("SIGKILL")
    }
  }, SLOW)
})

describe.concurrent("core-server command line", () => {
  it("prints help and the version", async () => {
    const help = await run(["--help"], {})
    expect([help.code, help.stdout.split("\n")[0]]).toEqual([0, "Usage: core-server <command> [options]"])
    const version = await run(["--version"], {})
    expect([version.code, version.stdout]).toEqual([0, "0.1.0\n"])
  }, SLOW)

  it("exits 2 with a clear message on bad arguments", async () => {
    const unknown = await run(["launch"], {})
    expect([unknown.code, unknown.stderr]).toEqual([2, "core-server: unknown command \"launch\"\nRun core-server --help for usage.\n"])
    const none = await run([], {})
    expect([none.code, none.stderr]).toEqual([2, "core-server: a command is required\nRun core-server --help for usage.\n"])
    const service = await run(["serve", "--service", "mail"], {})
    expect(service.code).toBe(2)
    expect(service.stderr).toContain("core-server: unknown service \"mail\" (services: iam, registry, stacks, provisioning, billing, cli, vault, events)")
  }, SLOW)

  it("exits 1 naming the variable when the configuration is bad", async () => {
    const port = await run(["start"], { PORT: "http", CORE_DATA_DIR: join(work, "never") })
    expect(port.code).toBe(1)
    expect(port.stderr).toBe("core-server: Invalid configuration: PORT must be an integer between 0 and 65535 (got \"http\")\n")
    expect(existsSync(join(work, "never"))).toBe(false)
  }, SLOW)

  it("exits 1 naming DATABASE_URL, without its password, when PostgreSQL cannot be reached", async () => {
    const start = await run(["start"], { PORT: "0", DATABASE_URL: "postgres://core:hunter2@127.0.0.1:1/core" })
    expect(start.code).toBe(1)
    expect(start.stderr).toMatch(/^core-server: Cannot open the database at 127\.0\.0\.1:1\/core \(DATABASE_URL\): /)
    expect(start.stderr).not.toContain("hunter2")
  }, SLOW)

  it("refuses backup and restore against PostgreSQL, and a service it does not know", async () => {
    const env = { DATABASE_URL: "postgres://core:secret@127.0.0.1:5432/core", CORE_DATA_DIR: join(work, "pg") }
    const backup = await run(["backup", join(work, "pg.tar.gz")], env)
    expect([backup.code, backup.stderr]).toEqual([
      1,
      "core-server: backup works on the embedded database only, and DATABASE_URL is set; use pg_dump for PostgreSQL\n"
    ])
    const restore = await run(["restore", join(work, "pg.tar.gz")], env)
    expect(restore.code).toBe(1)
    expect(restore.stderr).toContain("use pg_restore for PostgreSQL")
    const serve = await run(["serve", "--service", "payroll", "--port", "0"], { CORE_DATA_DIR: join(work, "serve") })
    // Every service the gateway routes to is part of this build now: a name outside them is a usage error.
    expect([serve.code, serve.stderr]).toEqual([
      2,
      'core-server: unknown service "payroll" (services: iam, registry, stacks, provisioning, billing, cli, vault, events)\nRun core-server --help for usage.\n'
    ])
  }, SLOW)
})
