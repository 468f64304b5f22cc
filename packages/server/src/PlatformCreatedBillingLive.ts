import { PaymentProviderLive, Plans, Subscriptions, SubscriptionsServices, UsageTotalsLive } from "@core/billing"
import { ForwardedCallers } from "@core/kernel"
import { PlatformCreated } from "@core/registry"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { BillingPlatformsLive, viewOf } from "./BillingPlatformsLive.js"

/**
 * The registry's `PlatformCreated` served by billing in process (decision 0446): a platform just
 * created gets its subscription and its customer at the payment provider at once
 * (`Subscriptions.ensure`, the very step of billing's reconciliation, which stays as the safety
 * net). On a database without billing's schema (a registry alone) it does nothing.
 */
export const PlatformCreatedBillingLive = Layer.effect(
  PlatformCreated,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const subscriptions = yield* Subscriptions
    const billingPresent = sql<{ present: boolean }>`SELECT to_regclass('billing.subscriptions') IS NOT NULL AS present`.pipe(
      Effect.map((rows) => rows[0]?.present === true),
      Effect.orDie
    )
    return PlatformCreated.of({
      created: (row) =>
        Effect.gen(function*() {
          if (!(yield* billingPresent)) return
          yield* subscriptions.ensure(viewOf(row))
        })
    })
  })
).pipe(
  Layer.provide(SubscriptionsServices),
  Layer.provide(Layer.mergeAll(Plans.layerConfig, PaymentProviderLive, BillingPlatformsLive, UsageTotalsLive)),
  Layer.provide(ForwardedCallers.layer)
)
