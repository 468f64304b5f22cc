import { PaymentProviderLive, Plans, Subscriptions, SubscriptionsServices, UsageTotalsLive } from "@core/billing"
import { CoreConfig, ForwardedCallers } from "@core/kernel"
import { BillingContactFailed, PlatformBillingContact, Platforms } from "@core/registry"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { BillingPlatformsLive, viewOf } from "./BillingPlatformsLive.js"
import { ensureOverHttp } from "./PlatformCreatedOverHttp.js"

/** Billing in process, on the shared database: the subscription made if need be, its customer's email set (nothing on a database without billing). */
const inProcess = Layer.effect(
  PlatformBillingContact,
  Effect.gen(function*() {
    const subscriptions = yield* Subscriptions
    const platforms = yield* Platforms
    const sql = yield* SqlClient.SqlClient
    const billingPresent = sql<{ present: boolean }>`SELECT to_regclass('billing.subscriptions') IS NOT NULL AS present`.pipe(
      Effect.map((rows) => rows[0]?.present === true),
      Effect.orDie
    )
    return PlatformBillingContact.of({
      set: (platformId, email) =>
        Effect.gen(function*() {
          // A database without billing's schema (provisioning alone, without billing): nobody to tell.
          if (!(yield* billingPresent)) return yield* Effect.logWarning("onboarding: billing is not on this database; the billing email stays on the flow").pipe(Effect.annotateLogs({ platformId }))
          const found = yield* platforms.find(platformId)
          if (Option.isNone(found)) return yield* Effect.fail(new BillingContactFailed(`Platform ${platformId} is not in the registry`))
          yield* subscriptions.withBillingEmail(viewOf(found.value), email)
        })
    })
  })
).pipe(
  Layer.provide(SubscriptionsServices),
  Layer.provide(Layer.mergeAll(Plans.layerConfig, PaymentProviderLive, BillingPlatformsLive, UsageTotalsLive, Platforms.Default)),
  Layer.provide(ForwardedCallers.layer)
)

/** Billing in another process: its internal subscription route with the email (the job retries a failure). */
const overHttp = (billingUrl: string) =>
  Layer.effect(
    PlatformBillingContact,
    Effect.map(CoreConfig, (config) => {
      const call = ensureOverHttp(billingUrl, config.secret)
      return PlatformBillingContact.of({
        set: (platformId, email) =>
          call(platformId, { billingEmail: email }).pipe(
            Effect.mapError((cause) => new BillingContactFailed(cause instanceof Error ? cause.message : "billing could not be reached"))
          )
      })
    })
  )

/**
 * Who makes an onboarding's billing email the email of its platform's customer (decision 0578):
 * billing over HTTP when this process reaches billing at `CORE_UPSTREAM_BILLING_URL`, else
 * billing's code in process on the shared database, as `PlatformCreatedLive` chooses.
 */
export const PlatformBillingContactLive = Layer.unwrapEffect(
  Effect.map(CoreConfig, (config): Layer.Layer<PlatformBillingContact, Layer.Layer.Error<typeof inProcess>, Layer.Layer.Context<typeof inProcess> | CoreConfig> =>
    config.upstreams.billing === undefined ? inProcess : overHttp(config.upstreams.billing))
)
