import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { CoreConfig, EventOutbox, Ids } from "@core/kernel"
import { makeHttpHarness, type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { type JobContext, JobHandlers, type JobRow, ProvisioningMigrations } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Effect, Either, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type AuditEntry,
  AuditTrail,
  DeliveriesRepo,
  EventsConfig,
  EventsMigrations,
  EventsRouter,
  EventsServices,
  WEBHOOK_DELIVER,
  WebhookJobsLive
} from "../src/index.js"
import { TestCallers } from "./Callers.js"

/**
 * The rule for endpoints that keep failing (`CORE_WEBHOOKS_DISABLE_AFTER`, 5 days by default; an
 * hour here): the delivery attempt that finds every attempt of its endpoint failed since longer
 * than that disables it, records `webhook.endpoint_disabled` and appends an audit entry; a success
 * inside the window, or a first failure, keeps it. The handler runs as the worker runs it, against
 * a local receiver that answers 500, on PGlite and PostgreSQL.
 */
const HOUR = 3_600_000
const audited: Array<AuditEntry> = []
const AuditTrailTest = Layer.succeed(AuditTrail, { record: (entry) => Effect.sync(() => void audited.push(entry)) })

const layerOn = (driver: "pglite" | "pg") =>
  WebhookJobsLive.pipe(
    Layer.provide(AuditTrailTest),
    Layer.provideMerge(EventsServices),
    Layer.provideMerge(Layer.mergeAll(
      TestCallers,
      Ids.layer,
      EventsConfig.layer({ allowHttp: true, allowPrivate: true, retryScheduleMs: [0, 0, 0, 0], timeoutMs: 5_000, disableAfterMs: HOUR })
    )),
    Layer.provideMerge(CoreConfig.layer({ CORE_SECRET: "events-failing-secret-0123456789abcdef", NODE_ENV: "test" })),
    Layer.provideMerge(TestDatabase.layer([ProvisioningMigrations, EventsMigrations], { driver }))
  )

const context: JobContext = { step: (_name, work) => work, progress: () => Effect.void }

const jobOf = (endpointId: string, eventId: string, attempts: number): JobRow => {
  const now = new Date()
  return {
    id: `job_${endpointId}_${attempts}`, type: WEBHOOK_DELIVER, platformId: null, organizationId: null, payload: { endpointId, eventId },
    status: "RUNNING", attempts, maxAttempts: 4, runAt: now, leaseUntil: null, lockedBy: "w", progress: 0, steps: [], result: null,
    error: null, startedAt: now, finishedAt: null, createdAt: now, updatedAt: now
  }
}

type Json = Record<string, any>

describe.each(TestDatabase.drivers)("endpoints that keep failing on %s", (driver) => {
  let h: HttpHarness<Layer.Layer.Success<ReturnType<typeof layerOn>>>
  let receiver: Server
  let url: string
  const send = (path: string, json?: unknown) =>
    h.fetch(path, { method: json === undefined ? "GET" : "POST", ...(json === undefined ? {} : { json }), token: "a_admin" })
  const endpoint = async () => ((await (await send("/api/v1/webhooks/endpoints", { url: `${url}/hooks` })).json()) as Json).id as string
  /** An event of `org_a`, recorded as a domain does. */
  const event = () =>
    h.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const platformId = `plt_fail${Date.now()}${Math.random().toString(36).slice(2, 6)}`
      yield* sql.withTransaction(EventOutbox.record({ type: "webhook.test", organizationId: "org_a", platformId, data: { endpointId: "whe_x", message: "hello" } }))
      const rows = yield* sql<{ id: string }>`SELECT id FROM events.outbox WHERE platform_id = ${platformId}`
      return rows[0].id
    }))
  /** An earlier attempt of the endpoint, `ago` milliseconds back. */
  const earlier = (endpointId: string, eventId: string, status: "succeeded" | "failed", ago: number) =>
    h.run(Effect.gen(function*() {
      const deliveries = yield* DeliveriesRepo
      const ids = yield* Ids.Ids
      yield* deliveries.insert({
        id: yield* ids.make("whd"), endpointId, eventId, eventType: "webhook.test", attempt: 1, status,
        statusCode: status === "succeeded" ? 200 : 500, durationMs: 3, response: "", error: status === "succeeded" ? null : "The endpoint answered 500",
        createdAt: new Date(Date.now() - ago)
      })
    }))
  const attempt = (endpointId: string, eventId: string, attempts = 2) =>
    h.run(Effect.flatMap(JobHandlers, (handlers) => Effect.either(handlers.get(WEBHOOK_DELIVER)!.run(jobOf(endpointId, eventId, attempts), context))))
  const stateOf = (endpointId: string) =>
    h.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ enabled: unknown; disabled_reason: string | null }>`SELECT enabled, disabled_reason FROM events.endpoints WHERE id = ${endpointId}`))
      .then((rows) => ({ enabled: rows[0].enabled === true || rows[0].enabled === "t", reason: rows[0].disabled_reason }))
  const disabledEvents = (endpointId: string) =>
    h.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ organization_id: string; data: unknown }>`SELECT organization_id, data FROM events.outbox
        WHERE type = 'webhook.endpoint_disabled' AND data->>'endpointId' = ${endpointId}`))

  beforeAll(async () => {
    receiver = createServer((_request, response) => void response.writeHead(500).end("down"))
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
    h = await makeHttpHarness(EventsRouter, layerOn(driver))
  }, 60_000)
  afterAll(async () => {
    await h?.dispose()
    await new Promise<void>((resolve) => receiver?.close(() => resolve()))
  })

  it("disables an endpoint whose every attempt failed for longer than the window: its event, its audit entry, no retry", async () => {
    const id = await endpoint()
    const first = await event()
    await earlier(id, first, "failed", 2 * HOUR)
    const outcome = await attempt(id, await event())
    expect(Either.isRight(outcome) && outcome.right).toMatchObject({ outcome: "disabled", reason: "failing", failingSince: expect.any(String) })
    expect(await stateOf(id)).toEqual({ enabled: false, reason: "failing" })
    const told = await disabledEvents(id)
    expect(told).toHaveLength(1)
    expect(told[0].organization_id).toBe("org_a")
    const data = typeof told[0].data === "string" ? JSON.parse(told[0].data) : told[0].data
    expect(data).toEqual({ endpointId: id, url: `${url}/hooks`, reason: "failing", disabledAt: expect.any(String) })
    expect(audited.filter((entry) => entry.targetId === id)).toEqual([{
      action: "webhook.endpoint_disable",
      organizationId: "org_a",
      targetType: "webhook_endpoint",
      targetId: id,
      metadata: { reason: "failing", url: `${url}/hooks`, failingSince: expect.any(String) }
    }])
    // The answer of the endpoint's read says it too; a later attempt skips it.
    expect(((await (await send(`/api/v1/webhooks/endpoints/${id}`)).json()) as Json).enabled).toBe(false)
    expect(await attempt(id, first, 3)).toEqual(Either.right({ outcome: "skipped", reason: "endpoint disabled or deleted" }))
    expect(await disabledEvents(id)).toHaveLength(1)
  })

  it("keeps an endpoint that succeeded inside the window, and one failing for the first time: the attempt is retried", async () => {
    const recovered = await endpoint()
    const fresh = await endpoint()
    const eventId = await event()
    await earlier(recovered, eventId, "failed", 3 * HOUR)
    await earlier(recovered, eventId, "succeeded", HOUR / 2)
    for (const id of [recovered, fresh]) {
      const outcome = await attempt(id, eventId)
      expect(Either.isLeft(outcome), id).toBe(true)
      expect(await stateOf(id)).toEqual({ enabled: true, reason: null })
      expect(await disabledEvents(id)).toEqual([])
    }
    expect(audited.filter((entry) => entry.targetId === recovered || entry.targetId === fresh)).toEqual([])
  })

  it("reads the window from CORE_WEBHOOKS_DISABLE_AFTER (5 days by default) and refuses a bad one naming it", async () => {
    const read = (env: Record<string, string>) =>
      Effect.runPromise(Effect.either(Effect.withConfigProvider(EventsConfig.config, ConfigProvider.fromMap(new Map(Object.entries(env))))))
    const defaults = await read({})
    expect(Either.isRight(defaults) && defaults.right.disableAfterMs).toBe(5 * 24 * HOUR)
    const set = await read({ CORE_WEBHOOKS_DISABLE_AFTER: "36h" })
    expect(Either.isRight(set) && set.right.disableAfterMs).toBe(36 * HOUR)
    for (const bad of ["5x", "0m", "400d"]) {
      const refused = await read({ CORE_WEBHOOKS_DISABLE_AFTER: bad })
      expect(Either.isLeft(refused), bad).toBe(true)
      expect(String(Either.isLeft(refused) ? refused.left : ""), bad).toContain("CORE_WEBHOOKS_DISABLE_AFTER")
    }
  })
})
