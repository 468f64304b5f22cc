import { Provisioning } from "@core/contracts"
import { Ids, Route } from "@core/kernel"
import { type HttpHarness, makeHttpHarness, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DeadLetters, JobApiHandlers, JobControls, JobEvents, JobFailed, type JobHandler, JobHandlers, JobQueue, Jobs, ProvisioningMigrations, Worker } from "../src/index.js"
import { TestCallers } from "../../../tests/support/testCallers.js"
import { until as poll } from "@core/kernel/testing/poll"

/** What the test handlers saw: runs per job, and the jobs whose handler was interrupted. */
const seen = { runs: new Map<string, number>(), interrupted: new Set<string>() }
const count = (id: string) => seen.runs.set(id, (seen.runs.get(id) ?? 0) + 1)

const handlers: Record<string, JobHandler> = {
  "test.ok": {
    run: (job, context) =>
      Effect.gen(function*() {
        count(job.id)
        yield* context.step("one", Effect.void)
        yield* context.progress(0.5)
        yield* context.step("two", Effect.void)
        return { done: true }
      })
  },
  "test.fail": { maxAttempts: 2, run: (job) => Effect.suspend(() => (count(job.id), Effect.fail(new JobFailed({ message: "edge said no" })))) },
  "test.block": {
    run: (job, context) =>
      Effect.gen(function*() {
        count(job.id)
        yield* context.step("wait", Effect.never)
      }).pipe(Effect.onInterrupt(() => Effect.sync(() => void seen.interrupted.add(job.id))))
  }
}

const makeLayer = (driver: "pglite" | "pg") => {
  const services = Layer.mergeAll(JobQueue.Default, JobEvents.Default, JobControls.Default, DeadLetters.Default).pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["CORE_SSE_KEEPALIVE_MS", "150"]]))))
  )
  const worker = Worker.layer({ pollMs: 30, backoffBaseMs: 20, leaseMs: 1_500 }).pipe(Layer.provide(JobHandlers.layer(handlers)))
  return Layer.mergeAll(services, worker).pipe(
    Layer.provideMerge(Layer.mergeAll(TestCallers, Ids.layer)),
    Layer.provideMerge(TestDatabase.layer([ProvisioningMigrations], { driver }))
  )
}

/** Read until `holds` (at most `ms`); the last value read, so that the test's `expect` shows it. */
const until = <A>(read: () => Promise<A>, holds: (a: A) => boolean, ms = 10_000): Promise<A> => poll(read, holds, ms)

interface Frame { readonly id?: string; readonly event?: string; readonly data?: any; readonly comment?: string }

/** Parse a text/event-stream body into its frames (comments included). */
const framesOf = (text: string): Array<Frame> =>
  text.split("\n\n").filter((block) => block.length > 0).map((block) => {
    const frame: Record<string, unknown> = {}
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) frame.comment = line.slice(1).trim()
      else if (line.startsWith("id: ")) frame.id = line.slice(4)
      else if (line.startsWith("event: ")) frame.event = line.slice(7)
      else if (line.startsWith("data: ")) frame.data = JSON.parse(line.slice(6))
    }
    return frame as Frame
  })

/** Read a stream until `done(frames)` or its end; answers the frames and whether it ended. */
const readFrames = async (response: Response, done: (frames: Array<Frame>) => boolean = () => false, ms = 10_000) => {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let text = ""
  const deadline = Date.now() + ms
  for (;;) {
    const chunk = await Promise.race([reader.read(), new Promise<"late">((resolve) => setTimeout(() => resolve("late"), Math.max(1, deadline - Date.now())))])
    if (chunk === "late") throw new Error(`stream timed out; read: ${text}`)
    if (chunk.done) return { frames: framesOf(text), ended: true }
    text += decoder.decode(chunk.value, { stream: true })
    const frames = framesOf(text.slice(0, text.lastIndexOf("\n\n") + 2))
    if (done(frames)) {
      await reader.cancel()
      return { frames, ended: false }
    }
  }
}

for (const driver of TestDatabase.drivers) {
  describe(`the job API on ${driver}`, () => {
    let h: HttpHarness<Layer.Layer.Success<ReturnType<typeof makeLayer>>>
    const enqueue = (type: string, organizationId: string | null, platformId: string | null = "plt_a", payload: Record<string, unknown> = {}) =>
      h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => Jobs.enqueue(sql, { type, platformId, organizationId, payload }))).then((j) => j.jobId)
    /** A job the worker leaves alone: due next year. */
    const park = (organizationId: string | null, platformId: string | null = "plt_a") =>
      h.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.withTransaction(Effect.gen(function*() {
          const { jobId } = yield* Jobs.enqueue(sql, { type: "test.parked", platformId, organizationId, payload: {} })
          yield* sql`UPDATE provisioning.jobs SET run_at = now() + interval '1 year' WHERE id = ${jobId}`
          return jobId
        }))))
    const query = <T extends object = Record<string, unknown>>(text: string, params: ReadonlyArray<unknown> = []) =>
      h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<T>(text, params as Array<unknown>)))
    const job = (id: string) => h.fetch(`/api/v1/provision/jobs/${id}`, { token: "usr_operator" }).then((r) => r.json())
    const statusIs = (id: string, status: string) => until(() => job(id), (j) => j.status === status)
    const post = (path: string, token = "usr_operator", json?: unknown) =>
      h.fetch(path, { method: "POST", token, ...(json === undefined ? {} : { json }) })

    beforeAll(async () => {
      // The job API beside the one-job read (the rest of provisioning's routes need the registry's ports).
      const getJob = Route.handle(Provisioning.ProvisioningRoutes.getJob, ({ caller, params }) =>
        Effect.map(Effect.flatMap(JobQueue, (jobs) => jobs.get(caller, params.jobId)), Jobs.toJobRecord))
      h = await makeHttpHarness(Route.router([...JobApiHandlers, getJob], { base: "/api/v1/provision" }), makeLayer(driver))
    }, 60_000)
    afterAll(() => h.dispose())

    describe("GET /jobs", () => {
      let a: Array<string>
      let b: string
      let ops: string
      beforeAll(async () => {
        await query(`DELETE FROM provisioning.jobs`)
        // Parked jobs (due next year) so that the worker leaves them QUEUED.
        a = []
        for (let i = 0; i < 3; i++) a.push(await park("org_a", "plt_a"))
        b = await park("org_b", "plt_b")
        ops = await park(null, null)
        await query(`UPDATE provisioning.jobs SET status = 'FAILED' WHERE id = $1`, [a[0]])
      })

      it("operators list every job, newest first, with the seed's pagination object", async () => {
        const response = await h.fetch("/api/v1/provision/jobs", { token: "usr_operator" })
        expect(response.status).toBe(200)
        const body = await response.json()
        expect(body.data.map((j: { jobId: string }) => j.jobId)).toEqual([ops, b, a[2], a[1], a[0]])
        expect(body.pagination).toEqual({ limit: 25, cursor: "", nextCursor: "", count: 5 })
        expect(body.data[0]).toMatchObject({ jobId: ops, type: "test.parked", status: "QUEUED", platformId: null, steps: [] })
        const service = await (await h.fetch("/api/v1/provision/jobs?platformId=plt_b", { token: "static" })).json()
        expect(service.data.map((j: { jobId: string }) => j.jobId)).toEqual([b])
      })

      it("pages with limit and cursor, and filters by status and platformId", async () => {
        const first = await (await h.fetch("/api/v1/provision/jobs?limit=2", { token: "usr_operator" })).json()
        expect(first.data.map((j: { jobId: string }) => j.jobId)).toEqual([ops, b])
        expect(first.pagination).toMatchObject({ limit: 2, cursor: "", count: 2, nextCursor: expect.stringMatching(/^[A-Za-z0-9_-]+$/) })
        const second = await (await h.fetch(`/api/v1/provision/jobs?limit=2&cursor=${first.pagination.nextCursor}`, { token: "usr_operator" })).json()
        expect(second.data.map((j: { jobId: string }) => j.jobId)).toEqual([a[2], a[1]])
        expect(second.pagination.cursor).toBe(first.pagination.nextCursor)
        const last = await (await h.fetch(`/api/v1/provision/jobs?limit=2&cursor=${second.pagination.nextCursor}`, { token: "usr_operator" })).json()
        expect(last).toEqual({ data: [expect.objectContaining({ jobId: a[0] })], pagination: { limit: 2, cursor: second.pagination.nextCursor, nextCursor: "", count: 1 } })
        const failed = await (await h.fetch("/api/v1/provision/jobs?status=FAILED", { token: "usr_operator" })).json()
        expect(failed.data.map((j: { jobId: string }) => j.jobId)).toEqual([a[0]])
      })

      it("a tenant lists its own jobs only; another tenant's platformId lists nothing; no organization lists nothing", async () => {
        const own = await (await h.fetch("/api/v1/provision/jobs", { token: "usr_member" })).json()
        expect(own.data.map((j: { jobId: string }) => j.jobId)).toEqual([a[2], a[1], a[0]])
        const key = await (await h.fetch("/api/v1/provision/jobs?status=QUEUED", { apiKey: "core_a" })).json()
        expect(key.data.map((j: { jobId: string }) => j.jobId)).toEqual([a[2], a[1]])
        const other = await h.fetch("/api/v1/provision/jobs?platformId=plt_b", { token: "usr_owner" })
        expect(other.status).toBe(200)
        expect(await other.json()).toEqual({ data: [], pagination: { limit: 25, cursor: "", nextCursor: "", count: 0 } })
        const bob = await (await h.fetch("/api/v1/provision/jobs", { token: "usr_b_owner" })).json()
        expect(bob.data.map((j: { jobId: string }) => j.jobId)).toEqual([b])
        const lonely = await (await h.fetch("/api/v1/provision/jobs", { token: "usr_lonely" })).json()
        expect(lonely.data).toEqual([])
      })

      it("refuses bad input with 400 naming the field, a key without platforms:read with 403, no credentials with 401", async () => {
        for (const [q, field] of [["limit=0", "limit"], ["limit=101", "limit"], ["limit=abc", "limit"], ["status=DONE", "status"], ["cursor=%21%21", "cursor"], [`cursor=${Buffer.from("{\"createdAt\":\"x\",\"id\":\"j\"}").toString("base64url")}`, "cursor"], [`platformId=${"p".repeat(129)}`, "platformId"]]) {
          const response = await h.fetch(`/api/v1/provision/jobs?${q}`, { token: "usr_operator" })
          expect(response.status, q).toBe(400)
          const body = await response.json()
          expect(body.error.code).toBe("VALIDATION_ERROR")
          expect(body.error.details.issues.map((i: { path: string }) => i.path), q).toContain(field)
        }
        expect((await h.fetch("/api/v1/provision/jobs", { apiKey: "core_none" })).status).toBe(403)
        expect((await h.fetch("/api/v1/provision/jobs")).status).toBe(401)
      })
    })

    describe("GET /jobs/{jobId}/events", () => {
      it("streams a finished job's events, then ends: statuses, steps and progress in order", async () => {
        const id = await enqueue("test.ok", "org_a")
        await statusIs(id, "COMPLETED")
        const response = await h.fetch(`/api/v1/provision/jobs/${id}/events`, { token: "usr_member" })
        expect(response.status).toBe(200)
        expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
        expect(response.headers.get("cache-control")).toBe("no-cache, no-store")
        const { frames, ended } = await readFrames(response)
        expect(ended).toBe(true)
        const events = frames.filter((f) => f.data !== undefined)
        expect(events.map((f) => [f.event, f.data.status, f.data.step?.name ?? null, f.data.step?.status ?? null])).toEqual([
          ["status", "QUEUED", null, null],
          ["status", "RUNNING", null, null],
          ["step", "RUNNING", "one", "running"],
          ["step", "RUNNING", "one", "completed"],
          ["progress", "RUNNING", null, null],
          ["step", "RUNNING", "two", "running"],
          ["step", "RUNNING", "two", "completed"],
          ["status", "COMPLETED", null, null]
        ])
        expect(events.map((f) => Number(f.id))).toEqual(events.map((f) => f.data.seq))
        expect(events[1].data).toEqual({
          seq: expect.any(Number), jobId: id, kind: "status", status: "RUNNING", from: "QUEUED", attempt: 1, progress: 0,
          step: null, actor: null, reason: null, at: expect.any(String)
        })
        expect(events[4].data.progress).toBe(0.5)
        expect(events[7].data).toMatchObject({ from: "RUNNING", progress: 1 })
        // Resuming after an event answers only the later ones.
        const resumed = await readFrames(await h.fetch(`/api/v1/provision/jobs/${id}/events`, { token: "usr_member", headers: { "last-event-id": events[5].id! } }))
        expect(resumed.frames.map((f) => f.data.seq)).toEqual(events.slice(6).map((f) => f.data.seq))
      }, 30_000)

      it("follows a running job live with keep-alive comments, and ends when an operator cancels it", async () => {
        const id = await enqueue("test.block", "org_a")
        const response = await h.fetch(`/api/v1/provision/jobs/${id}/events`, { token: "usr_owner" })
        expect(response.status).toBe(200)
        const reader = readFrames(response, () => false, 15_000)
        await until(() => job(id), (j) => j.steps.length === 1)
        // Wait for a keep-alive while the job waits, then cancel it.
        await new Promise((resolve) => setTimeout(resolve, 400))
        expect((await post(`/api/v1/provision/jobs/${id}/cancel`)).status).toBe(200)
        const { frames, ended } = await reader
        expect(ended).toBe(true)
        expect(frames.some((f) => f.comment === "keep-alive")).toBe(true)
        const events = frames.filter((f) => f.data !== undefined)
        expect(events.map((f) => [f.event, f.data.status])).toEqual([["status", "QUEUED"], ["status", "RUNNING"], ["step", "RUNNING"], ["status", "FAILED"]])
        expect(events[3].data).toMatchObject({ from: "RUNNING", actor: "usr_operator", reason: "Cancelled by an operator" })
      }, 30_000)

      it("another tenant's job, an unknown job and a bad id: 404, 404, 400", async () => {
        const id = await enqueue("test.ok", "org_a")
        const refused = await h.fetch(`/api/v1/provision/jobs/${id}/events`, { token: "usr_b_owner" })
        expect(refused.status).toBe(404)
        expect((await refused.json()).error.code).toBe("NOT_FOUND")
        expect((await h.fetch(`/api/v1/provision/jobs/${id}/events`, { apiKey: "core_b" })).status).toBe(404)
        expect((await h.fetch("/api/v1/provision/jobs/job_01JABCDEFGHJKMNPQRSTVWXYZ0/events", { token: "usr_operator" })).status).toBe(404)
        // A job id of any shape that names nothing is the same 404 (decision 0567).
        const bad = await h.fetch("/api/v1/provision/jobs/nope/events", { token: "usr_operator" })
        expect(bad.status).toBe(404)
        expect((await bad.json()).error).toMatchObject({ code: "NOT_FOUND", message: "Job not found", details: null })
        expect((await h.fetch(`/api/v1/provision/jobs/${id}/events`)).status).toBe(401)
      })
    })

    describe("operator controls", () => {
      it("retry: FAILED → QUEUED, runs again with renewed attempts; from anything else 409 INVALID_STATE", async () => {
        const id = await enqueue("test.fail", "org_a")
        await statusIs(id, "FAILED")
        expect((await job(id)).attempts).toBe(2)
        const response = await post(`/api/v1/provision/jobs/${id}/retry`, "usr_operator", { reason: "edge fixed" })
        expect(response.status).toBe(200)
        expect(await response.json()).toEqual({ jobId: id, status: "QUEUED" })
        await until(() => job(id), (j) => j.status === "FAILED" && seen.runs.get(id) === 4)
        expect(seen.runs.get(id)).toBe(4)
        const events = await query<{ status: string; actor: string | null; reason: string | null }>(
          `SELECT status, actor, reason FROM provisioning.job_events WHERE job_id = $1 AND kind = 'status' AND actor IS NOT NULL`, [id])
        expect(events).toEqual([{ status: "QUEUED", actor: "usr_operator", reason: "edge fixed" }])

        const done = await enqueue("test.ok", "org_a")
        await statusIs(done, "COMPLETED")
        const refused = await post(`/api/v1/provision/jobs/${done}/retry`, "static")
        expect(refused.status).toBe(409)
        expect((await refused.json()).error).toMatchObject({ code: "INVALID_STATE", details: { from: "COMPLETED", to: "QUEUED" } })
      }, 30_000)

      it("cancel: QUEUED → FAILED with the reason (not a dead letter); RUNNING → FAILED with its handler stopped; else 409", async () => {
        const parked = await park("org_a")
        const response = await post(`/api/v1/provision/jobs/${parked}/cancel`, "usr_operator", { reason: "not needed" })
        expect(response.status).toBe(200)
        expect(await response.json()).toEqual({ jobId: parked, status: "FAILED", reason: "not needed" })
        expect(await job(parked)).toMatchObject({ status: "FAILED", error: "not needed", finishedAt: expect.any(String) })

        const running = await enqueue("test.block", "org_a")
        await until(() => job(running), (j) => j.status === "RUNNING" && j.steps.length === 1)
        const started = Date.now()
        const cancelled = await post(`/api/v1/provision/jobs/${running}/cancel`, "static")
        expect(await cancelled.json()).toEqual({ jobId: running, status: "FAILED", reason: "Cancelled by an operator" })
        await until(async () => seen.interrupted.has(running), (stopped) => stopped, 5_000)
        expect(seen.interrupted.has(running)).toBe(true)
        expect(Date.now() - started).toBeLessThan(1_400)
        expect(await job(running)).toMatchObject({ status: "FAILED", error: "Cancelled by an operator" })

        const again = await post(`/api/v1/provision/jobs/${running}/cancel`)
        expect(again.status).toBe(409)
        expect((await again.json()).error.details).toEqual({ from: "FAILED", to: "FAILED" })
        expect(await query(`SELECT job_id FROM provisioning.dead_letters WHERE job_id IN ($1, $2)`, [parked, running])).toEqual([])
      }, 30_000)

      it("force-complete: FAILED, QUEUED or RUNNING → COMPLETED (a running handler stopped); COMPLETED → 409", async () => {
        const running = await enqueue("test.block", "org_a")
        await until(() => job(running), (j) => j.status === "RUNNING" && j.steps.length === 1)
        const response = await post(`/api/v1/provision/jobs/${running}/force-complete`)
        expect(response.status).toBe(200)
        expect(await response.json()).toEqual({ jobId: running, status: "COMPLETED" })
        await until(async () => seen.interrupted.has(running), (stopped) => stopped, 5_000)
        expect(await job(running)).toMatchObject({ status: "COMPLETED", progress: 1, result: { forced: true } })
        const refused = await post(`/api/v1/provision/jobs/${running}/force-complete`)
        expect(refused.status).toBe(409)
        expect((await refused.json()).error).toMatchObject({ code: "INVALID_STATE", details: { from: "COMPLETED", to: "COMPLETED" } })

        const failed = await enqueue("test.fail", "org_a")
        await statusIs(failed, "FAILED")
        expect((await post(`/api/v1/provision/jobs/${failed}/force-complete`)).status).toBe(200)
        expect((await job(failed)).status).toBe("COMPLETED")
      }, 30_000)

      it("are the operators' and the service key's: 403 for a tenant's owner and API key, 401 without credentials, 404 for no job, 400 for bad input", async () => {
        const id = await enqueue("test.ok", "org_a")
        await statusIs(id, "COMPLETED")
        for (const action of ["retry", "cancel", "force-complete"]) {
          const path = `/api/v1/provision/jobs/${id}/${action}`
          const owner = await post(path, "usr_owner")
          expect(owner.status, action).toBe(403)
          expect((await owner.json()).error.code).toBe("FORBIDDEN")
          expect((await h.fetch(path, { method: "POST", apiKey: "core_a_manage" })).status, action).toBe(403)
          expect((await h.fetch(path, { method: "POST" })).status, action).toBe(401)
          expect((await post(`/api/v1/provision/jobs/job_01JABCDEFGHJKMNPQRSTVWXYZ0/${action}`)).status, action).toBe(404)
          const bad = await post(path, "usr_operator", { reason: "x".repeat(4097) })
          expect(bad.status, action).toBe(400)
          expect((await bad.json()).error.details.issues[0].path).toBe("reason")
        }
      })
    })

    describe("dead letters", () => {
      it("a job that exhausts its attempts is copied with its last error; the list pages; replay makes a new job", async () => {
        await query(`DELETE FROM provisioning.dead_letters`)
        const first = await enqueue("test.fail", "org_a", "plt_a", { n: 1 })
        await statusIs(first, "FAILED")
        const second = await enqueue("test.fail", null, null, { n: 2 })
        await statusIs(second, "FAILED")
        const list = await h.fetch("/api/v1/provision/dlq?limit=1", { token: "usr_operator" })
        expect(list.status).toBe(200)
        const page = await list.json()
        expect(page).toEqual({
          data: [{
            entryId: expect.stringMatching(/^dlq_[0-9A-HJKMNP-TV-Z]{26}$/), jobId: first, type: "test.fail", platformId: "plt_a", payload: { n: 1 },
            attempts: 2, maxAttempts: 5, error: "edge said no", failedAt: expect.any(String), replayCount: 0, replayedJobId: null, replayedAt: null
          }],
          pagination: { limit: 1, cursor: expect.stringMatching(/^[A-Za-z0-9_-]+$/) }
        })
        const next = await (await h.fetch(`/api/v1/provision/dlq?limit=1&cursor=${page.pagination.cursor}`, { token: "static" })).json()
        expect(next.data.map((e: { jobId: string }) => e.jobId)).toEqual([second])
        // The last page: its cursor is empty.
        expect(next.pagination).toEqual({ limit: 1, cursor: "" })

        const entryId = page.data[0].entryId
        const replay = await post(`/api/v1/provision/dlq/${entryId}/replay`)
        expect(replay.status).toBe(202)
        const replayed = await replay.json()
        expect(replayed).toEqual({ jobId: expect.stringMatching(/^job_/), status: "QUEUED", entryId })
        expect(replayed.jobId).not.toBe(first)
        const [row] = await query<{ type: string; platform_id: string; organization_id: string; payload: unknown }>(
          `SELECT type, platform_id, organization_id, payload FROM provisioning.jobs WHERE id = $1`, [replayed.jobId])
        expect(row).toMatchObject({ type: "test.fail", platform_id: "plt_a", organization_id: "org_a" })
        const [firstEvent] = await query<{ status: string; actor: string; reason: string }>(
          `SELECT status, actor, reason FROM provisioning.job_events WHERE job_id = $1 ORDER BY seq LIMIT 1`, [replayed.jobId])
        expect(firstEvent).toEqual({ status: "QUEUED", actor: "usr_operator", reason: `Replay of ${entryId} (job ${first})` })
        const entry = (await (await h.fetch("/api/v1/provision/dlq", { token: "usr_operator" })).json()).data.find((e: { entryId: string }) => e.entryId === entryId)
        expect(entry).toMatchObject({ replayCount: 1, replayedJobId: replayed.jobId, replayedAt: expect.any(String) })
        // The replayed job fails for good too: a new entry of its own.
        await statusIs(replayed.jobId, "FAILED")
        await until(() => query(`SELECT 1 FROM provisioning.dead_letters WHERE job_id = $1`, [replayed.jobId]), (rows) => rows.length === 1)
      }, 30_000)

      it("the list and replay are the operators': 403, 401, 404 for no entry (an id of any shape), 400 for bad input", async () => {
        expect((await h.fetch("/api/v1/provision/dlq", { token: "usr_owner" })).status).toBe(403)
        expect((await h.fetch("/api/v1/provision/dlq", { apiKey: "core_a_manage" })).status).toBe(403)
        expect((await h.fetch("/api/v1/provision/dlq")).status).toBe(401)
        expect((await post("/api/v1/provision/dlq/dlq_01JABCDEFGHJKMNPQRSTVWXYZ0/replay", "usr_owner")).status).toBe(403)
        const missing = await post("/api/v1/provision/dlq/dlq_01JABCDEFGHJKMNPQRSTVWXYZ0/replay")
        expect(missing.status).toBe(404)
        const notFound = await missing.json()
        expect(notFound.error).toMatchObject({ code: "NOT_FOUND", message: "Dead-letter entry not found", details: null })
        // Another prefix, or no id at all, names nothing either: the same 404 (decision 0567).
        for (const id of ["job_01JABCDEFGHJKMNPQRSTVWXYZ0", "dlq_x"]) {
          const bad = await post(`/api/v1/provision/dlq/${id}/replay`)
          expect(bad.status).toBe(404)
          expect({ ...(await bad.json()).error, requestId: null }).toEqual({ ...notFound.error, requestId: null })
        }
        const limit = await h.fetch("/api/v1/provision/dlq?limit=500", { token: "usr_operator" })
        expect(limit.status).toBe(400)
        expect((await limit.json()).error.details.issues[0].path).toBe("limit")
      })
    })
  })
}
