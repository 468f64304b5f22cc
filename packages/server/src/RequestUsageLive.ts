import { UsageIngest } from "@core/billing"
import { RequestUsage } from "@core/gateway"
import type { Configuration } from "@core/kernel"
import type { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Redacted, type Scope } from "effect"
import { UsageIngestLive } from "./UsageIngestLive.js"

/**
 * The gateway's request meter as `core-server start` runs it (decision 0464): flushed to billing's
 * ingestion in process, or — billing running apart (`CORE_UPSTREAM_BILLING_URL`) — to its
 * `POST /internal/usage/events` with the static key. Without that key a remote billing cannot be
 * reached, and requests are not metered (a warning says so).
 */
export const make = (config: Configuration): Effect.Effect<RequestUsage.RequestUsage | undefined, never, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function*() {
    const remote = config.upstreams.billing
    if (remote === undefined) {
      const context = yield* Layer.build(UsageIngestLive)
      const ingest = Context.get(context, UsageIngest)
      return yield* RequestUsage.make({ sink: (events) => ingest.ingest(events) })
    }
    if (config.staticApiKey === undefined) {
      yield* Effect.logWarning("requests are not metered: billing runs apart (CORE_UPSTREAM_BILLING_URL) and CORE_STATIC_API_KEY is not set")
      return undefined
    }
    const key = Redacted.value(config.staticApiKey)
    const url = `${remote.replace(/\/+$/, "")}/internal/usage/events`
    return yield* RequestUsage.make({
      sink: (events) =>
        Effect.tryPromise(async () => {
          const response = await fetch(url, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: JSON.stringify({ events }),
            signal: AbortSignal.timeout(10_000)
          })
          if (!response.ok) throw new Error(`billing answered ${response.status}`)
        })
    })
  })
