import { Database } from "@core/kernel"
import { Duration, Effect, Schedule, type Scope } from "effect"
import type { Guard, Frame } from "./Middleware.js"

/** One flushed count: billing's usage event of meter `requests` (decision 0464). */
export interface RequestUsageEvent {
  readonly id: string
  readonly platformId: string
  readonly tenantId?: string
  readonly meter: "requests"
  readonly quantity: number
  readonly occurredAt: string
}

/** Where flushed counts go: billing's ingestion service in process, or its `POST /internal/usage/events`. */
export type RequestUsageSink = (events: ReadonlyArray<RequestUsageEvent>) => Effect.Effect<unknown, unknown>

/** The gateway's request meter: counts in memory on the request path, flushed in batches off it. */
export interface RequestUsage {
  /** Count one request of a platform (and a tenant): a map increment, nothing else. */
  readonly record: (platformId: string, tenantId: string | undefined) => void
  /** Send what was counted since the last flush (and what an earlier flush failed to send). */
  readonly flush: Effect.Effect<void>
}

export interface RequestUsageOptions {
  readonly sink: RequestUsageSink
  /** How often counts are flushed. @default 5 seconds */
  readonly every?: Duration.DurationInput
  /** The most events of one call to the sink (the ingestion API takes 1,000). @default 1000 */
  readonly batchSize?: number
}

/** The request's tenant: the registry entity its path names (`/api/v1/platforms/{p}/entities/{ent}/…`), if any. */
const ENTITY_PATH = /^\/api\/v1\/platforms\/[^/]+\/entities\/([^/]{1,128})(?:\/|$)/

/** The tenant a path acts on, if it names one. */
export const tenantOf = (pathname: string): string | undefined => ENTITY_PATH.exec(pathname)?.[1]

const SEPARATOR = "\u0000"

/**
 * A request meter. Counts live in a `Map` keyed by platform and tenant; a fiber of the scope
 * swaps the map out every `every` and sends it as events whose ids are unique to this process and
 * flush (`req_<instance>_<flush>_<n>`), so that a batch retried after a failure is counted once.
 * A batch the sink refuses stays pending and goes with the next flush; the scope's end flushes once
 * more.
 */
export const make = (options: RequestUsageOptions): Effect.Effect<RequestUsage, never, Scope.Scope> =>
  Effect.gen(function*() {
    const instance = crypto.randomUUID().replaceAll("-", "").slice(0, 16)
    const batchSize = options.batchSize ?? 1000
    let counts = new Map<string, number>()
    let windowStart = Date.now()
    let flushes = 0
    let pending: Array<ReadonlyArray<RequestUsageEvent>> = []

    const record = (platformId: string, tenantId: string | undefined) => {
      const key = tenantId === undefined ? platformId : `${platformId}${SEPARATOR}${tenantId}`
      counts.set(key, (counts.get(key) ?? 0) + 1)
    }

    const drain = () => {
      if (counts.size === 0) return
      const taken = counts
      const occurredAt = new Date(windowStart).toISOString()
      counts = new Map()
      windowStart = Date.now()
      const flush = ++flushes
      let n = 0
      let batch: Array<RequestUsageEvent> = []
      for (const [key, quantity] of taken) {
        const [platformId, tenantId] = key.split(SEPARATOR) as [string, string | undefined]
        batch.push({ id: `req_${instance}_${flush}_${n++}`, platformId, ...(tenantId === undefined ? {} : { tenantId }), meter: "requests", quantity, occurredAt })
        if (batch.length === batchSize) {
          pending.push(batch)
          batch = []
        }
      }
      if (batch.length > 0) pending.push(batch)
    }

    const flush = Effect.suspend(() => {
      drain()
      const batches = pending
      pending = []
      return Effect.forEach(batches, (batch) =>
        options.sink(batch).pipe(
          Effect.catchAllCause((cause) =>
            Effect.sync(() => void pending.push(batch)).pipe(
              Effect.zipRight(Database.logFailure("request usage not flushed; kept for the next flush", cause, "Warning").pipe(Effect.annotateLogs({ events: batch.length })))
            )
          )
        ), { discard: true })
    }).pipe(Effect.withSpan("RequestUsage.flush"))

    yield* Effect.forkScoped(Effect.repeat(flush, Schedule.spaced(Duration.decode(options.every ?? Duration.seconds(5)))).pipe(Effect.interruptible))
    yield* Effect.addFinalizer(() => flush)
    return { record, flush }
  })

/** Count the request of a frame's principal: a user's or an API key's platform, never the service key's. */
const countFrame = (usage: RequestUsage, frame: Frame) => {
  const principal = frame.principal
  if (principal === undefined || principal.kind === "service" || principal.platformId === null) return
  usage.record(principal.platformId, tenantOf(frame.pathname))
}

/**
 * A guard that meters the requests another lets through: wrapped around the last step of the
 * chain (suspension), it counts each request that reaches its upstream, once authenticated and not
 * suspended — synchronously, without a fiber of its own.
 */
export const counting = (guard: Guard, usage: RequestUsage): Guard => (exchange, frame) => {
  const verdict = guard(exchange, frame)
  if (Effect.isEffect(verdict)) {
    return Effect.tap(verdict, (answer) =>
      Effect.sync(() => {
        if (answer === undefined) countFrame(usage, frame)
      }))
  }
  if (verdict === undefined) countFrame(usage, frame)
  return verdict
}
