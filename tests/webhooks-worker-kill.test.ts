import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Crypto } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { Effect, Exit, Scope } from "effect"
import pg from "pg"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launch, logLines, type Running } from "../packages/server/test/ServerProcess.js"
import { eventuallyDefined } from "./support/poll.js"

/**
 * At-least-once delivery across a crash, on PostgreSQL only: a `core-server worker` process is
 * SIGKILLed while its attempt waits for the receiver's answer; another worker takes the job when
 * the lease lapses and delivers the event again, with the same `webhook-id` and a signature
 * `standardwebhooks` accepts. The endpoint's log holds one success and nothing of the killed
 * attempt (it never finished), so a receiver that answered once is told once per success.
 */
const SECRET = "webhook-kill-test-secret-0123456789abcdef"
const LEASE_MS = 2_000
const ENDPOINT_SECRET = `whsec_${Buffer.from("kill-test-endpoint-secret-32byte").toString("base64")}`

const until = <A>(what: string, probe: () => Promise<A | undefined>, timeoutMs: number): Promise<A> =>
  eventuallyDefined(probe, { message: what, timeout: timeoutMs, interval: 100 })

interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
  answered: boolean
}

describe.skipIf(TestDatabase.url === undefined)("a webhook delivery survives a worker killed mid-attempt (PostgreSQL)", () => {
  const scope = Effect.runSync(Scope.make())
  let databaseUrl = ""
  let db: pg.Pool
  let receiver: Server
  let url = ""
  const received: Array<Received> = []
  const held: Array<ServerResponse> = []
  const workers: Array<Running> = []

  const startWorker = async () => {
    const running = launch(["worker", "--concurrency", "2"], {
      DATABASE_URL: databaseUrl,
      CORE_SECRET: SECRET,
      CORE_JOB_LEASE_MS: String(LEASE_MS),
      CORE_WORKER_POLL_MS: "100",
      CORE_WEBHOOKS_ALLOW_HTTP: "1",
      CORE_WEBHOOKS_ALLOW_PRIVATE: "1",
      CORE_WEBHOOKS_RETRY_SCHEDULE: "0s,100ms,100ms,100ms,100ms",
      CORE_WEBHOOKS_TIMEOUT_MS: "30000",
      LOG_LEVEL: "info"
    })
    workers.push(running)
    await until("the worker started", async () => {
      if (running.child.exitCode !== null) throw new Error(`the worker exited\n${running.output.stdout}\n${running.output.stderr}`)
      return logLines(running.output.stdout).some((line) => line.message === "worker started") ? true : undefined
    }, 120_000)
    return running
  }

  beforeAll(async () => {
    // The first request is held unanswered (the attempt in flight when its worker dies); later ones get 200.
    receiver = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const entry: Received = { headers: request.headers, body: Buffer.concat(chunks).toString("utf8"), answered: false }
        received.push(entry)
        if (received.length === 1) return void held.push(response)
        entry.answered = true
        response.writeHead(200).end("ok")
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
    databaseUrl = await Effect.runPromise(Scope.extend(TestDatabase.scratchDatabase(TestDatabase.url!), scope))
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 })
    db.on("error", () => {})
  }, 60_000)

  afterAll(async () => {
    for (const worker of workers) worker.child.kill("SIGKILL")
    await Promise.all(workers.map((worker) => worker.exited))
    for (const response of held) response.destroy()
    await new Promise<void>((resolve) => receiver?.close(() => resolve()))
    await db?.end()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }, 60_000)

  it("is delivered by the next worker with the same webhook-id, once per success", async () => {
    const first = await startWorker()
    const endpointId = "whe_01JQ0000000000000000000002"
    const eventId = "evt_01JQ0000000000000000000001"
    const sealed = Crypto.encrypt(Crypto.deriveKey(SECRET, "webhook-secrets"), ENDPOINT_SECRET, endpointId)
    await db.query(`INSERT INTO events.endpoints (id, organization_id, platform_id, url, description, event_types, enabled, secret, created_at, updated_at)
      VALUES ($1, 'org_kill', NULL, $2, '', '[]'::jsonb, true, $3, now(), now())`, [endpointId, url, sealed])
    await db.query(`INSERT INTO events.outbox (id, type, version, organization_id, platform_id, data, created_at)
      VALUES ($1, 'webhook.test', 1, 'org_kill', NULL, $2::jsonb, now())`, [eventId, JSON.stringify({ endpointId, message: "survive" })])
    await db.query(`INSERT INTO provisioning.jobs (id, type, platform_id, organization_id, payload, status, max_attempts, run_at, created_at, updated_at)
      VALUES ('job_01JQ0000000000000000000003', 'webhook.deliver', NULL, NULL, $1::jsonb, 'QUEUED', 5, now(), now(), now())`,
      [JSON.stringify({ endpointId, eventId })])
    await db.query(`SELECT pg_notify('core_provisioning_jobs', 'kill')`)

    await until("the first attempt reached the receiver", async () => (received.length >= 1 ? true : undefined), 30_000)
    first.child.kill("SIGKILL")
    await first.exited
    await startWorker()
    await until("the job completed on the second worker", async () => {
      const rows = (await db.query<{ status: string }>(`SELECT status FROM provisioning.jobs WHERE id = 'job_01JQ0000000000000000000003'`)).rows
      return rows[0]?.status === "COMPLETED" ? true : undefined
    }, 30_000)

    expect(received.length).toBeGreaterThanOrEqual(2)
    expect(new Set(received.map((request) => request.headers["webhook-id"]))).toEqual(new Set([eventId]))
    expect(received.filter((request) => request.answered)).toHaveLength(1)
    const answered = received.find((request) => request.answered)!
    const verified = new Webhook(ENDPOINT_SECRET).verify(answered.body, answered.headers as Record<string, string>) as { id: string; data: unknown }
    expect(verified).toMatchObject({ id: eventId, type: "webhook.test", data: { endpointId, message: "survive" } })
    const log = (await db.query<{ status: string; status_code: number | null }>(
      `SELECT status, status_code FROM events.deliveries WHERE event_id = $1 ORDER BY created_at`, [eventId])).rows
    expect(log).toEqual([{ status: "succeeded", status_code: 200 }])
    // The delivery job is internal: no job event told anyone about it.
    const told = (await db.query<{ n: string }>(`SELECT count(*) AS n FROM events.outbox WHERE type LIKE 'job.%'`)).rows
    expect(Number(told[0].n)).toBe(0)
  }, 240_000)
})
