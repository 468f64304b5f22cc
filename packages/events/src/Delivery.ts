import { Events } from "@core/contracts"
import { EventOutbox, Ids, Metrics } from "@core/kernel"
import { JobFailed, type JobHandler, JobHandlers } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Either, Layer, Option } from "effect"
import { fetch } from "undici"
import { EventsConfig } from "./Config.js"
import { DeliveriesRepo } from "./DeliveriesRepo.js"
import { WEBHOOK_DELIVER } from "./Dispatch.js"
import { Endpoints } from "./Endpoints.js"
import { type EndpointRow, EndpointsRepo } from "./EndpointsRepo.js"
import { EventsRepo, toEnvelope } from "./EventsRepo.js"
import { headersFor } from "./Signing.js"
import { AuditTrail } from "./ports/AuditTrail.js"
import { deliveryAgent, precheck } from "./Targets.js"

/** What one attempt found. */
interface Outcome {
  readonly statusCode: number | null
  readonly response: string
  readonly error: string | null
  readonly durationMs: number
}

const decoder = new TextDecoder()

/** The first `max` bytes of a body, the rest left unread. */
const head = async (body: ReadableStream<Uint8Array> | null, max: number): Promise<string> => {
  if (body === null) return ""
  const reader = body.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  try {
    while (size < max) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      size += value.byteLength
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
  const all = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    all.set(chunk, offset)
    offset += chunk.byteLength
  }
  return decoder.decode(all.subarray(0, max))
}

const reasonOf = (error: unknown): string => {
  const cause = (error as { cause?: unknown }).cause
  if (cause instanceof Error) return cause.message
  if (error instanceof Error) return error.name === "TimeoutError" ? "The endpoint did not answer in time" : error.message
  return String(error)
}

/**
 * The `webhook.deliver` job: one attempt to post an event to an endpoint, signed per Standard
 * Webhooks (`webhook-id` is the event id, the same in every attempt), its outcome kept in the
 * endpoint's delivery log. A 2xx ends it; 410 disables the endpoint (with a
 * `webhook.endpoint_disabled` event to the organization's other endpoints); anything else is
 * retried on the queue after the configured schedule's next delay. An endpoint whose every attempt
 * has failed for `disableAfterMs` (5 days) is disabled the same way, with an audit entry
 * (`AuditTrail`, when bound). The last attempt ends the job without failing it, so a delivery
 * never reaches the dead letters: the log is where it is seen.
 */
export const WebhookJobsLive: Layer.Layer<JobHandlers, never, Endpoints | EndpointsRepo | EventsRepo | DeliveriesRepo | EventsConfig | Ids.Ids | SqlClient.SqlClient | EventOutbox.EventOutbox> =
  Layer.scoped(
    JobHandlers,
    Effect.gen(function*() {
      const endpoints = yield* Endpoints
      const endpointsRepo = yield* EndpointsRepo
      const events = yield* EventsRepo
      const deliveries = yield* DeliveriesRepo
      const settings = yield* EventsConfig
      const ids = yield* Ids.Ids
      const sql = yield* SqlClient.SqlClient
      const outbox = yield* EventOutbox.EventOutbox
      const audit = yield* Effect.serviceOption(AuditTrail)
      const agent = yield* Effect.acquireRelease(Effect.sync(() => deliveryAgent(settings, settings.timeoutMs)), (pool) => Effect.promise(() => pool.close()))
      const schedule = settings.retryScheduleMs

      const post = (endpoint: EndpointRow, body: string, headers: Record<string, string>): Effect.Effect<Outcome> =>
        Effect.promise(async () => {
          const started = performance.now()
          const took = () => Math.round(performance.now() - started)
          const refused = precheck(endpoint.url, settings)
          if (Either.isLeft(refused)) return { statusCode: null, response: "", error: refused.left, durationMs: 0 }
          try {
            const response = await fetch(endpoint.url, {
              method: "POST",
              body,
              headers: { ...headers, "content-type": "application/json", "user-agent": "Core-Webhooks/1" },
              redirect: "manual",
              dispatcher: agent,
              signal: AbortSignal.timeout(settings.timeoutMs)
            })
            const text = await head(response.body as ReadableStream<Uint8Array> | null, Events.DELIVERY_RESPONSE_MAX_BYTES)
            return { statusCode: response.status, response: text, error: null, durationMs: took() }
          } catch (error) {
            return { statusCode: null, response: "", error: reasonOf(error), durationMs: took() }
          }
        })

      /**
       * Disable the endpoint (410 Gone, or failing for too long), and in the same transaction tell
       * the organization's other endpoints and append the audit entry; answers whether this call did it.
       */
      const disable = (endpoint: EndpointRow, reason: "gone" | "failing", at: Date, metadata: Record<string, unknown> = {}) =>
        sql.withTransaction(Effect.gen(function*() {
          if (!(yield* endpointsRepo.disable(endpoint.id, reason, at))) return false
          yield* outbox.record({
            type: "webhook.endpoint_disabled",
            organizationId: endpoint.organizationId,
            platformId: endpoint.platformId,
            data: { endpointId: endpoint.id, url: endpoint.url, reason, disabledAt: at.toISOString() }
          })
          if (Option.isSome(audit)) {
            yield* audit.value.record({
              action: "webhook.endpoint_disable",
              organizationId: endpoint.organizationId,
              targetType: "webhook_endpoint",
              targetId: endpoint.id,
              metadata: { reason, url: endpoint.url, ...metadata }
            })
          }
          return true
        })).pipe(Effect.orDie)

      /** Whether the endpoint has failed every attempt for `disableAfterMs` by `at` (its attempt at `at` recorded). */
      const failingTooLong = (endpointId: string, at: Date) =>
        Effect.map(deliveries.failingSince(endpointId), (since) =>
          Option.isSome(since) && at.getTime() - since.value.getTime() >= settings.disableAfterMs ? since : Option.none<Date>())

      const deliver: JobHandler = {
        maxAttempts: schedule.length,
        retryDelayMs: (attempts) => schedule[Math.min(attempts, schedule.length - 1)],
        run: (job) =>
          Effect.gen(function*() {
            const endpointId = String(job.payload.endpointId ?? "")
            const eventId = String(job.payload.eventId ?? "")
            const endpoint = yield* endpointsRepo.findById(endpointId)
            if (Option.isNone(endpoint) || !endpoint.value.enabled) return { outcome: "skipped", reason: "endpoint disabled or deleted" }
            const event = yield* events.find(endpoint.value.organizationId, eventId)
            if (Option.isNone(event)) return { outcome: "skipped", reason: "event pruned" }
            const at = new Date(yield* Clock.currentTimeMillis)
            const body = JSON.stringify(toEnvelope(event.value))
            const secrets = yield* endpoints.signingSecrets(endpoint.value, at)
            const headers = yield* Effect.promise(() => headersFor(secrets, event.value.id, Math.floor(at.getTime() / 1000), body))
            const outcome = yield* post(endpoint.value, body, headers)
            const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300
            Metrics.webhooks.attempted(ok, outcome.durationMs / 1_000)
            yield* deliveries.insert({
              id: yield* ids.make("whd"),
              endpointId,
              eventId,
              eventType: event.value.type,
              attempt: job.attempts,
              status: ok ? "succeeded" : "failed",
              ...outcome,
              error: ok ? null : outcome.error ?? `The endpoint answered ${outcome.statusCode}`,
              createdAt: at
            })
            if (ok) return { outcome: "delivered", statusCode: outcome.statusCode }
            if (outcome.statusCode === 410) {
              yield* disable(endpoint.value, "gone", at)
              return { outcome: "gone", statusCode: 410 }
            }
            const failing = yield* failingTooLong(endpointId, at)
            if (Option.isSome(failing)) {
              yield* disable(endpoint.value, "failing", at, { failingSince: failing.value.toISOString() })
              return { outcome: "disabled", reason: "failing", failingSince: failing.value.toISOString() }
            }
            if (job.attempts >= schedule.length) return { outcome: "failed", attempts: job.attempts }
            return yield* Effect.fail(new JobFailed({ message: outcome.error ?? `The endpoint answered ${outcome.statusCode}` }))
          })
      }
      return new Map([[WEBHOOK_DELIVER, deliver]])
    })
  )
