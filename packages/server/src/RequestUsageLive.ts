import { UsageIngest } from "@core/billing"
import { RequestUsage } from "@core/gateway"
import { type Caller, type Configuration, ForwardedIdentity } from "@core/kernel"
import type { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, type Scope } from "effect"
import { UsageIngestLive } from "./UsageIngestLive.js"

/**
 * The gateway's request meter as `core-server start` runs it (decision 0464): flushed to billing's
 * ingestion in process, or — billing running apart (`CORE_UPSTREAM_BILLING_URL`) — to its
 * `POST /internal/usage/events` as the gateway itself calls a service: a service caller signed in
 * `X-Core-Identity` for billing with `CORE_SECRET` (decision 0554; billing alone trusts nothing
 * else, a static key in `Authorization` included).
 */
export const make = (config: Configuration): Effect.Effect<RequestUsage.RequestUsage | undefined, never, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function*() {
    const remote = config.upstreams.billing
    if (remote === undefined) {
      const context = yield* Layer.build(UsageIngestLive)
      const ingest = Context.get(context, UsageIngest)
      return yield* RequestUsage.make({ sink: (events) => ingest.ingest(events) })
    }
    const key = ForwardedIdentity.keyFrom(config.secret)
    const gateway: Caller = { kind: "service" }
    const url = `${remote.replace(/\/+$/, "")}/internal/usage/events`
    return yield* RequestUsage.make({
      sink: (events) =>
        Effect.tryPromise(async () => {
          const response = await fetch(url, {
            method: "POST",
            headers: {
              ...ForwardedIdentity.headersFor(gateway, ForwardedIdentity.sign(key, gateway, "billing", Date.now())),
              "content-type": "application/json"
            },
            body: JSON.stringify({ events }),
            signal: AbortSignal.timeout(10_000)
          })
          if (!response.ok) throw new Error(`billing answered ${response.status}`)
        })
    })
  })
