import { Billing } from "@core/contracts"
import { CoreConfig, ForwardedIdentity } from "@core/kernel"
import { PlatformCreated } from "@core/registry"
import { Duration, Effect, FiberSet, Layer, type Redacted, Schedule } from "effect"

/** The audience billing's guard verifies (`serve --service billing`). */
const AUDIENCE = "billing"
const ATTEMPT_TIMEOUT = Duration.seconds(10)
/** How long a creation waits for billing before it answers anyway. */
const FIRST_ATTEMPT = Duration.seconds(3)
/** 0.2 s doubling, nine attempts in all: about 50 s, then the reconciliation (each minute) is the net. */
const RETRIES = Schedule.exponential(Duration.millis(200), 2).pipe(Schedule.intersect(Schedule.recurs(8)))

class BillingRefused extends Error {
  constructor(readonly status: number) {
    super(`billing answered ${status}`)
  }
}

/**
 * One call of billing's internal `POST /internal/platforms/{platformId}/subscription` at
 * `billingUrl`, as the service, signed with `CORE_SECRET` for billing's audience exactly as the
 * gateway signs its callers; `body` (an onboarding's billing email) is optional. Anything but 200
 * fails (the caller retries).
 */
export const ensureOverHttp = (billingUrl: string, secret: Redacted.Redacted<string>) => {
  const key = ForwardedIdentity.keyFrom(secret)
  const base = billingUrl.replace(/\/+$/, "")
  return (platformId: string, body?: Billing.EnsurePlatformSubscriptionRequest) =>
    Effect.tryPromise({
      try: async () => {
        const caller = { kind: "service" } as const
        const headers: Record<string, string> = ForwardedIdentity.headersFor(caller, ForwardedIdentity.sign(key, caller, AUDIENCE, Date.now()))
        const path = Billing.BillingRoutes.ensurePlatformSubscription.path.replace("{platformId}", encodeURIComponent(platformId))
        const response = await fetch(`${base}${path}`, {
          method: "POST",
          headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(Duration.toMillis(ATTEMPT_TIMEOUT))
        })
        await response.body?.cancel()
        if (response.status !== 200) throw new BillingRefused(response.status)
      },
      catch: (cause) => cause
    })
}

/**
 * The registry's `PlatformCreated` when billing runs in another process (decision 0447): billing's
 * internal route `POST /internal/platforms/{platformId}/subscription` at `CORE_UPSTREAM_BILLING_URL`,
 * as the service, signed with `CORE_SECRET` for billing's audience exactly as the gateway signs its
 * callers. Delivered off the creation's path and retried (a creation inside a larger transaction —
 * onboarding, identity's organization setup — is visible to billing only once that commits, so a
 * 404 is retried too). The route is idempotent and billing makes one customer per platform however
 * often it is called or raced by its reconciliation.
 */
export const PlatformCreatedOverHttp = (billingUrl: string) =>
  Layer.scoped(
    PlatformCreated,
    Effect.gen(function*() {
      const config = yield* CoreConfig
      const fibers = yield* FiberSet.make()
      const attempt = ensureOverHttp(billingUrl, config.secret)
      const retried = (platformId: string) =>
        attempt(platformId).pipe(
          Effect.retry(RETRIES),
          Effect.catchAllCause((cause) =>
            Effect.logWarning("platform created: billing was not told; its reconciliation will make the subscription", cause).pipe(
              Effect.annotateLogs({ platformId })
            )
          )
        )
      return PlatformCreated.of({
        // The first attempt before the creation answers (a platform made alone is committed by now);
        // on any failure the retries go on in the background.
        created: (row) =>
          attempt(row.id).pipe(
            Effect.timeout(FIRST_ATTEMPT),
            Effect.catchAll(() => Effect.asVoid(FiberSet.run(fibers, retried(row.id))))
          )
      })
    })
  )
