import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { isPlanId, type Plan, Plans } from "../Plans.js"
import { BillingPlatforms } from "../ports/BillingPlatforms.js"
import { SubscriptionsRepo } from "../SubscriptionsRepo.js"
import { calendarMonth, UsageAccounts, type UsagePeriod } from "./UsageAccounts.js"

const allowancesOf = (plan: Plan): UsagePeriod["allowances"] => ({
  requests: plan.allowances.requests,
  resource_hours: plan.allowances.resourceHours,
  builds: plan.allowances.builds
})

/** The registry's reads that metering needs: `BillingPlatforms`' `find` and `ofOrganization`. */
export type PlatformReads = Pick<BillingPlatforms["Type"], "find" | "ofOrganization">

/**
 * `UsageAccounts` over billing's own records (decision 0461) and the registry's reads: ownership
 * from the registry, the period and plan from the platform's subscription — a platform without one
 * (created before billing ran, say) meters by calendar month (UTC) on the plan of its tier. For a
 * producer's context (the gateway's meter, provisioning's resource-hours, deploy's builds), which
 * reads the registry without billing's writes to it.
 */
export const usageAccountsOver = (platforms: PlatformReads): Effect.Effect<UsageAccounts["Type"], never, SqlClient.SqlClient | Plans> =>
  Effect.gen(function*() {
    const subscriptions = yield* SubscriptionsRepo
    const plans = yield* Plans
    return UsageAccounts.of({
      owner: (platformId) => Effect.map(platforms.find(platformId), Option.map((platform) => platform.organizationId)),
      platformOf: (organizationId) => Effect.map(platforms.ofOrganization(organizationId), Option.map((platform) => platform.id)),
      period: (platformId, at) =>
        Effect.gen(function*() {
          const subscribed = yield* subscriptions.byPlatform(platformId)
          if (Option.isSome(subscribed) && isPlanId(subscribed.value.planId)) {
            const subscription = subscribed.value
            return { start: subscription.currentPeriodStart, end: subscription.currentPeriodEnd, allowances: allowancesOf(plans.get(subscription.planId)) }
          }
          const platform = yield* platforms.find(platformId)
          const tier = Option.match(platform, { onNone: () => "free" as const, onSome: (found) => found.tier })
          return { ...calendarMonth(at), allowances: allowancesOf(plans.get(tier)) }
        }).pipe(Effect.orDie)
    })
  }).pipe(Effect.provide(SubscriptionsRepo.Default))

/** `usageAccountsOver` the registry as billing sees it (`BillingPlatforms`). */
export const UsageAccountsLive: Layer.Layer<UsageAccounts, never, SqlClient.SqlClient | Plans | BillingPlatforms> = Layer.effect(
  UsageAccounts,
  Effect.flatMap(BillingPlatforms, usageAccountsOver)
)
