import { Database } from "@core/kernel"
import { Duration, Effect, Layer, Schedule } from "effect"
import { LiveResources } from "./ports/LiveResources.js"
import { type ResourceHourEvent, UsageReporter } from "./ports/UsageReporter.js"

const HOUR_MS = 3_600_000
const BATCH = 1000

/** The start of the hour containing `at`, in milliseconds. */
export const hourOf = (at: number): number => Math.floor(at / HOUR_MS) * HOUR_MS

/**
 * The events of one hour (starting at `hourStart`): one resource-hour per resource live in it, its
 * id derived from the resource and the hour so that reporting an hour again counts nothing twice
 * (decision 0465).
 */
export const eventsOf = (hourStart: number, resources: ReadonlyArray<{ id: string; platformId: string; entityId: string; stackId: string }>): Array<ResourceHourEvent> =>
  resources.map((resource) => ({
    id: `rh_${resource.id}_${hourStart / HOUR_MS}`,
    platformId: resource.platformId,
    tenantId: resource.entityId,
    stackId: resource.stackId,
    meter: "resource_hours",
    quantity: 1,
    occurredAt: new Date(hourStart).toISOString()
  }))

/** Report the resource-hours of the hour starting at `hourStart`, in batches of 1,000. */
export const reportHour = (hourStart: number) =>
  Effect.gen(function*() {
    const live = yield* LiveResources
    const reporter = yield* UsageReporter
    const events = eventsOf(hourStart, yield* live.during(new Date(hourStart), new Date(hourStart + HOUR_MS)))
    for (let at = 0; at < events.length; at += BATCH) yield* reporter.report(events.slice(at, at + BATCH))
    return events.length
  }).pipe(Effect.withSpan("ResourceHours.reportHour"))

/**
 * Provisioning's resource-hours reporter: every `every` (default a minute) it reports each whole
 * hour that ended since the last one reported, starting with the hour before it started. A failed
 * report is retried at the next tick (the hour stays unreported); the event ids make overlaps
 * between processes harmless.
 */
export const layer = (options: { readonly every?: Duration.DurationInput } = {}): Layer.Layer<never, never, LiveResources | UsageReporter> =>
  Layer.scopedDiscard(
    Effect.gen(function*() {
      let next = hourOf(Date.now()) - HOUR_MS
      const tick = Effect.gen(function*() {
        while (next + HOUR_MS <= Date.now()) {
          yield* reportHour(next)
          next += HOUR_MS
        }
      }).pipe(Effect.catchAllCause((cause) => Database.logFailure("resource-hours not reported; retried at the next tick", cause, "Warning")))
      yield* Effect.forkScoped(Effect.repeat(tick, Schedule.spaced(Duration.decode(options.every ?? Duration.minutes(1)))))
    })
  )
