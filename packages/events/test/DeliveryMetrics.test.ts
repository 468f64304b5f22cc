import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { CoreConfig, EventOutbox, Ids, Metrics } from "@core/kernel"
import { type HttpHarness, makeHttpHarness, TestDatabase } from "@core/kernel/testing"
import { type JobContext, JobHandlers, type JobRow, ProvisioningMigrations } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Prometheus from "../../../tests/support/prometheus.js"
import { AuditTrail, EventsConfig, EventsMigrations, EventsRouter, EventsServices, WEBHOOK_DELIVER, WebhookJobsLive } from "../src/index.js"
import { TestCallers } from "./Callers.js"

/**
 * The deliveries' metrics move where an attempt's outcome is recorded: one attempt to a receiver
 * answering 204 and one to a receiver answering 500, the handler run as the worker runs it (PGlite).
 */
const layer = WebhookJobsLive.pipe(
  Layer.provide(Layer.succeed(AuditTrail, { record: () => Effect.void })),
  Layer.provideMerge(EventsServices),
  Layer.provideMerge(Layer.mergeAll(
    TestCallers,
    Ids.layer,
    EventsConfig.layer({ allowHttp: true, allowPrivate: true, retryScheduleMs: [0, 0, 0, 0], timeoutMs: 5_000 })
  )),
  Layer.provideMerge(CoreConfig.layer({ CORE_SECRET: "events-metrics-secret-0123456789abcdef", NODE_ENV: "test" })),
  Layer.provideMerge(TestDatabase.layer([ProvisioningMigrations, EventsMigrations], { driver: "pglite" }))
)

const context: JobContext = { step: (_name, work) => work, progress: () => Effect.void }

const jobOf = (endpointId: string, eventId: string): JobRow => {
  const now = new Date()
  return {
    id: `job_${endpointId}`, type: WEBHOOK_DELIVER, platformId: null, organizationId: null, payload: { endpointId, eventId },
    status: "RUNNING", attempts: 1, maxAttempts: 4, runAt: now, leaseUntil: null, lockedBy: "w", progress: 0, steps: [], result: null,
    error: null, startedAt: now, finishedAt: null, createdAt: now, updatedAt: now
  }
}

describe("webhook delivery metrics", () => {
  let h: HttpHarness<Layer.Layer.Success<typeof layer>>
  let receiver: Server
  let url: string
  const endpoint = async (path: string) =>
    ((await (await h.fetch("/api/v1/webhooks/endpoints", { method: "POST", json: { url: `${url}${path}` }, token: "a_admin" })).json()) as {
      id: string
    }).id
  const event = () =>
    h.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const platformId = `plt_metrics${Date.now()}`
      yield* sql.withTransaction(EventOutbox.record({ type: "webhook.test", organizationId: "org_a", platformId, data: { endpointId: "whe_x", message: "hello" } }))
      return (yield* sql<{ id: string }>`SELECT id FROM events.outbox WHERE platform_id = ${platformId}`)[0].id
    }))
  const attempt = (endpointId: string, eventId: string) =>
    h.run(Effect.flatMap(JobHandlers, (handlers) => Effect.either(handlers.get(WEBHOOK_DELIVER)!.run(jobOf(endpointId, eventId), context))))
  const scrape = async () => Prometheus.parse(await Metrics.render())

  beforeAll(async () => {
    receiver = createServer((request, response) => void response.writeHead(request.url === "/ok" ? 204 : 500).end())
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
    h = await makeHttpHarness(EventsRouter, layer)
  }, 60_000)
  afterAll(async () => {
    await h?.dispose()
    await new Promise<void>((resolve) => receiver?.close(() => resolve()))
  })

  it("counts attempts by outcome and observes their durations", async () => {
    const eventId = await event()
    const [ok, failing] = [await endpoint("/ok"), await endpoint("/down")]
    const before = await scrape()
    await attempt(ok, eventId)
    await attempt(failing, eventId)
    await attempt(failing, eventId)
    const after = await scrape()
    const delta = (name: string, outcome: string) => Prometheus.valueOf(after, name, { outcome }) - Prometheus.valueOf(before, name, { outcome })
    expect([delta("core_webhook_delivery_attempts_total", "succeeded"), delta("core_webhook_delivery_attempts_total", "failed")]).toEqual([1, 2])
    expect([delta("core_webhook_delivery_duration_seconds", "succeeded"), delta("core_webhook_delivery_duration_seconds", "failed")]).toEqual([1, 2])
    const [succeeded] = Prometheus.seriesOf(after, "core_webhook_delivery_duration_seconds", { outcome: "succeeded" })
    expect(Number(succeeded.sum)).toBeGreaterThan(0)
    // No endpoint, event or organization id in any label.
    expect(Prometheus.seriesOf(after, "core_webhook_delivery_attempts_total").map((series) => Object.keys(series.labels))).toEqual([["outcome"], ["outcome"]])
  })
})
