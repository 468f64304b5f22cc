import { TestDatabase } from "@core/kernel/testing"
import { createClient } from "@core/sdk"
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { builtCli } from "../packages/cli/test/built-cli.js"
import { core, tempHome, writeLogin } from "../packages/cli/test/login-support.js"
import type { CoreRun } from "../packages/cli/test/run-core.js"
import { useServer } from "../packages/server/test/ServerProcess.js"

/**
 * `core jobs` and `core dlq` with the real built binary: against the real all-in-one server (on
 * PGlite and, with CORE_TEST_DATABASE_URL, PostgreSQL) a feature activated through the registry is
 * watched over the job's Server-Sent Events until COMPLETED (exit 0), shown, listed and paged, the
 * operator routes answer their errors, and another platform's owner gets 404 for the job; against a stand-in server a job that FAILS ends the
 * watch with exit 1, and on a terminal (util-linux `script`) the steps are drawn in place.
 */
const SLOW = 240_000
const STATIC_KEY = "cli-jobs-static-key-0123456789abcdef"
let bin = ""

beforeAll(async () => {
  bin = (await builtCli()).bundle
}, SLOW)

const json = <T>(run: CoreRun): T => {
  expect(run.code, run.stderr).toBe(0)
  return JSON.parse(run.stdout) as T
}

interface Job { jobId: string; type: string; status: string; platformId: string; steps: Array<{ name: string; status: string }>; progress: number }

for (const driver of TestDatabase.drivers) {
  describe(`core jobs and core dlq (built binary) against the all-in-one server on ${driver}`, () => {
    const server = useServer({ CORE_STATIC_API_KEY: STATIC_KEY }, SLOW, { driver })

    it("watches a feature activation's job until COMPLETED, shows and lists jobs; the operator routes answer their errors", async () => {
      const operator = tempHome()
      const scoped = tempHome()
      const ada = tempHome()
      try {
        const env = { CORE_API_URL: server.base }
        writeLogin(operator, server.base, STATIC_KEY, null, "operator")
        const op = (args: ReadonlyArray<string>) => core(operator, args, env, bin)
        const platformId = json<{ id: string }>(await op(["platforms", "create", `cli-jobs-${driver}`, "--name", "Jobs", "--json"])).id
        writeLogin(scoped, server.base, STATIC_KEY, platformId, "operator")
        const run = (args: ReadonlyArray<string>) => core(scoped, args, env, bin)

        const started = json<{ provisionJobId: string }>(await run(["features", "activate", "billing", "--version", "1.2.0", "--json"]))
        const jobId = started.provisionJobId
        expect(jobId).toMatch(/^job_/)

        // watch, piped: one plain line per event, the last line the job's end; exit 0.
        const watched = await run(["jobs", "watch", jobId, "--timeout", "60"])
        expect(watched.code, watched.stderr).toBe(0)
        const lines = watched.stdout.trimEnd().split("\n")
        expect(lines[0]).toMatch(/^status (QUEUED|QUEUED -> RUNNING) \(attempt \d\)/)
        expect(lines).toContain("status RUNNING -> COMPLETED (attempt 1)")
        expect(lines.at(-1)).toBe(`Job ${jobId} (feature.activate) COMPLETED`)
        expect(watched.stderr).toBe("")
        // --json: one event per line, the last one COMPLETED (the job is over: its past events, then the end).
        const events = (await run(["jobs", "watch", jobId, "--json"])).stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { seq: number; status: string; kind: string })
        expect(events.at(-1)).toMatchObject({ kind: "status", status: "COMPLETED" })
        expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((a, b) => a - b))

        // show: the record, --json and text.
        const shown = json<Job>(await run(["jobs", "show", jobId, "--json"]))
        expect(shown).toMatchObject({ jobId, type: "feature.activate", status: "COMPLETED", platformId, progress: 1 })
        expect((await run(["jobs", "show", jobId])).stdout).toMatch(new RegExp(`^feature\\.activate ${jobId}: COMPLETED, 100%\\n  Platform:  ${platformId}\\n`))

        // list: the login's platform, a table, --status, paging with --limit/--cursor and --all.
        json(await run(["features", "activate", "search", "--version", "0.1.0", "--json"]))
        const table = await run(["jobs", "list"])
        expect(table.stdout).toMatch(/^ID\s+TYPE\s+STATUS\s+PROGRESS\s+ATTEMPTS\s+PLATFORM\s+CREATED\n/)
        expect(table.stdout).toContain(jobId)
        const first = json<{ data: Array<Job>; nextCursor: string }>(await run(["jobs", "list", "--limit", "1", "--json"]))
        expect([first.data.length, typeof first.nextCursor]).toEqual([1, "string"])
        const second = json<{ data: Array<Job>; nextCursor: string | null }>(await run(["jobs", "list", "--limit", "1", "--cursor", first.nextCursor, "--json"]))
        expect(second.data.map((j) => j.jobId)).not.toEqual(first.data.map((j) => j.jobId))
        const all = json<{ data: Array<Job>; nextCursor: null }>(await run(["jobs", "list", "--limit", "1", "--all", "--json"]))
        expect(all.data.length).toBeGreaterThanOrEqual(2)
        const last = await run(["jobs", "list", "--limit", "100", "--json"])
        expect(json<{ nextCursor: string | null }>(last).nextCursor).toBeNull()
        expect((await run(["jobs", "list", "--limit", "100"])).stdout).not.toContain("More jobs")
        expect(all.data.every((j) => j.platformId === platformId)).toBe(true)
        expect(json<{ data: Array<Job> }>(await op(["jobs", "list", "--platform", platformId, "--status", "COMPLETED", "--all", "--json"])).data.map((j) => j.jobId)).toContain(jobId)
        expect(json<{ data: Array<Job> }>(await run(["jobs", "list", "--status", "FAILED", "--json"])).data).toEqual([])

        // The operator routes: retry of a COMPLETED job is 409 INVALID_STATE (exit 1); cancel asks first; an unknown dead letter is 404.
        const retried = await op(["jobs", "retry", jobId])
        expect([retried.code, retried.stdout, /INVALID_STATE|409/.test(retried.stderr)]).toEqual([1, "", true])
        expect((await op(["jobs", "cancel", jobId])).code).toBe(2)
        const cancelled = await op(["jobs", "cancel", jobId, "--yes", "--reason", "test"])
        expect([cancelled.code, /INVALID_STATE|409/.test(cancelled.stderr)]).toEqual([1, true])
        expect(json<{ data: Array<unknown>; nextCursor: string | null }>(await op(["dlq", "list", "--json"]))).toMatchObject({ data: expect.any(Array) })
        expect((await op(["dlq", "list"])).code).toBe(0)
        const replay = await op(["dlq", "replay", "dlq_01JDQ3V6X4TQ7K9ZC2M8N5P0RS"])
        expect([replay.code, /NOT_FOUND|404/.test(replay.stderr)]).toEqual([1, true])
        const unknown = await run(["jobs", "watch", "job_01JDQ3V6X4TQ7K9ZC2M8N5P0RS"])
        expect([unknown.code, /NOT_FOUND|404/.test(unknown.stderr)]).toEqual([1, true])

        // Another platform's owner: her own (empty) job list; this platform's job is 404 to show and watch; the operator routes 403.
        const slug = `ada-cli-jobs-${driver}`
        const { token } = await createClient({ baseUrl: server.base }).iam.signUp({ name: "Ada", email: `${slug}@example.com`, password: "correct horse battery" })
        const setup = await fetch(`${server.base}/api/v1/iam/api/core/org-setup`, {
          method: "POST",
          headers: { "content-type": "application/json", cookie: `core.session_token=${token}` },
          body: JSON.stringify({ name: "Ada", slug })
        })
        expect(setup.status).toBe(201)
        const { orgId, platformId: adaPlatform } = (await setup.json()) as { orgId: string; platformId: string }
        await createClient({ baseUrl: server.base, token }).iam.organizations.setActive({ organizationId: orgId })
        writeLogin(ada, server.base, token, adaPlatform, "owner")
        const asAda = (args: ReadonlyArray<string>) => core(ada, args, env, bin)
        expect(json<{ data: Array<Job> }>(await asAda(["jobs", "list", "--json"])).data.every((j) => j.platformId === adaPlatform)).toBe(true)
        expect(json<{ data: Array<Job> }>(await asAda(["jobs", "list", "--platform", platformId, "--json"])).data).toEqual([])
        for (const args of [["jobs", "show", jobId], ["jobs", "watch", jobId]]) {
          const answer = await asAda(args)
          expect([answer.code, answer.stderr.includes("NOT_FOUND")], args.join(" ")).toEqual([1, true])
        }
        for (const args of [["jobs", "retry", jobId], ["dlq", "list"]]) {
          const answer = await asAda(args)
          expect([answer.code, /FORBIDDEN|NOT_FOUND/.test(answer.stderr)], args.join(" ")).toEqual([1, true])
        }
      } finally {
        operator.remove()
        scoped.remove()
        ada.remove()
      }
    }, SLOW)
  })
}

/** A stand-in provisioning service: the job's stream as scripted, and the job's final record. */
const standIn = async (final: "COMPLETED" | "FAILED") => {
  const JOB = "job_01JDQ3V6X4TQ7K9ZC2M8N5P0RS"
  const step = (name: string, status: string, error: string | null = null) => ({ name, status, startedAt: "2026-01-01T00:00:00.000Z", finishedAt: status === "running" ? null : "2026-01-01T00:00:01.000Z", error })
  const event = (seq: number, kind: string, status: string, extra: object = {}) => ({
    seq, jobId: JOB, kind, status, from: null, attempt: 1, progress: 0, step: null, actor: null, reason: null, at: "2026-01-01T00:00:00.000Z", ...extra
  })
  const script = [
    event(1, "status", "RUNNING", { from: "QUEUED" }),
    event(2, "step", "RUNNING", { step: step("create-worker", "running") }),
    event(3, "step", "RUNNING", { step: step("create-worker", "completed"), progress: 0.5 }),
    event(4, "step", "RUNNING", { step: step("bind-domain", final === "FAILED" ? "failed" : "completed", final === "FAILED" ? "edge said no" : null), progress: final === "FAILED" ? 0.5 : 1 }),
    event(5, "status", final, { from: "RUNNING", progress: final === "FAILED" ? 0.5 : 1, reason: final === "FAILED" ? "edge said no" : null })
  ]
  const record = {
    jobId: JOB, type: "app.create", platformId: "plt_1", status: final, attempts: 1, maxAttempts: 1, progress: final === "FAILED" ? 0.5 : 1,
    steps: [step("create-worker", "completed"), step("bind-domain", final === "FAILED" ? "failed" : "completed", final === "FAILED" ? "edge said no" : null)],
    payload: {}, result: null, error: final === "FAILED" ? "edge said no" : null, runAt: "x", startedAt: "x", finishedAt: "x", createdAt: "x", updatedAt: "x"
  }
  const http = createServer((req, res: ServerResponse) => {
    if (req.url?.endsWith("/events") === true) {
      res.writeHead(200, { "content-type": "text/event-stream" })
      let i = 0
      const next = () => {
        const e = script[i++]
        if (e === undefined) return res.end()
        res.write(`id: ${e.seq}\nevent: ${e.kind}\ndata: ${JSON.stringify(e)}\n\n: keep-alive\n\n`)
        setTimeout(next, 40)
      }
      return next()
    }
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify(record))
  })
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
  return {
    base: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    jobId: JOB,
    close: () => new Promise<void>((resolve) => {
      http.closeAllConnections()
      http.close(() => resolve())
    })
  }
}

const hasScript = existsSync("/usr/bin/script") && process.platform === "linux"
const quote = (value: string) => `'${value.replace(/'/g, "'\\''")}'`
// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "").replace(/\r/g, "")

describe("core jobs watch (built binary) against a stand-in stream", () => {
  const home = tempHome()
  afterAll(() => home.remove())

  it("prints one line per event when piped and exits 1 when the job FAILS", async () => {
    const stub = await standIn("FAILED")
    try {
      writeLogin(home, stub.base, "t", "plt_1", "owner")
      const watched = await core(home, ["jobs", "watch", stub.jobId], { CORE_API_URL: stub.base }, bin)
      expect(watched.code).toBe(1)
      expect(watched.stdout).toBe([
        "status QUEUED -> RUNNING (attempt 1)",
        "step create-worker running",
        "step create-worker completed",
        "step bind-domain failed: edge said no",
        "status RUNNING -> FAILED (attempt 1): edge said no",
        `Job ${stub.jobId} (app.create) FAILED: edge said no`,
        ""
      ].join("\n"))
    } finally {
      await stub.close()
    }
  }, SLOW)

  it.skipIf(!hasScript)("draws the steps in place on a terminal and exits 0 when the job COMPLETES", async () => {
    const stub = await standIn("COMPLETED")
    try {
      writeLogin(home, stub.base, "t", "plt_1", "owner")
      const command = `stty cols 100 rows 40; exec ${[process.execPath, bin, "jobs", "watch", stub.jobId].map(quote).join(" ")}`
      const { CI: _ci, ...inherited } = process.env
      const result = await new Promise<{ code: number; output: string }>((resolve) => {
        const child = spawn("script", ["-qefc", command, "/dev/null"], {
          env: { ...inherited, TERM: "xterm-256color", HOME: home.home, CORE_API_URL: stub.base, NO_COLOR: "1" },
          stdio: ["pipe", "pipe", "pipe"]
        })
        let output = ""
        child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
        child.on("close", (code) => resolve({ code: code ?? -1, output }))
      })
      expect(result.code, plain(result.output)).toBe(0)
      expect(result.output).toContain("\u001b[J") // redrawn in place
      const text = plain(result.output)
      expect(text).toContain(`Job ${stub.jobId}: RUNNING [##########----------] 50%`)
      expect(text).toContain(`Job ${stub.jobId}: COMPLETED [####################] 100%\n  ✓ create-worker\n  ✓ bind-domain\n`)
      expect(text.trimEnd().endsWith(`Job ${stub.jobId} (app.create) COMPLETED`)).toBe(true)
    } finally {
      await stub.close()
    }
  }, SLOW)

  it("answers usage errors with exit 2 before any request, and has per-subcommand help", async () => {
    const env = { CORE_API_URL: "http://127.0.0.1:9" }
    for (const args of [["jobs"], ["jobs", "wach"], ["jobs", "watch"], ["jobs", "list", "--status", "DONE"], ["jobs", "list", "--limit", "0"],
      ["jobs", "watch", "job_1", "--timeout", "0"], ["jobs", "show", "a", "b"], ["jobs", "retry", "job_1", "--yes"], ["dlq"], ["dlq", "replay"], ["dlq", "list", "--frob"]]) {
      const result = await core(home, args, env, bin)
      expect([args, result.code, result.stdout]).toEqual([args, 2, ""])
    }
    const help = await core(home, ["help", "jobs", "watch"], env, bin)
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("core jobs watch <job-id> [--timeout <seconds>]")
    expect((await core(home, ["dlq", "--help"], env, bin)).stdout).toContain("core dlq <list|replay> [options]")
  }, SLOW)
})
