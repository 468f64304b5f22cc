import { calendarMonth, isPlanId, type Plan, Plans, UsageAccounts, UsageIngest, type UsagePeriod } from "@core/billing"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"

const allowancesOf = (plan: Plan): UsagePeriod["allowances"] => ({
  requests: plan.allowances.requests,
  resource_hours: plan.allowances.resourceHours,
  builds: plan.allowances.builds
})

/**
 * `UsageAccounts` straight on the shared database, for the producers outside the billing service
 * (the gateway's request meter, provisioning's resource-hours, deploys' builds), whose contexts do
 * not hold the registry's services: the owner and tier from `registry.platforms`, the period and
 * plan from `billing.subscriptions` — the same answers as billing's `UsageAccountsLive`.
 */
export const UsageAccountsOnDatabase: Layer.Layer<UsageAccounts, never, SqlClient.SqlClient | Plans> = Layer.effect(
  UsageAccounts,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const plans = yield* Plans
    return UsageAccounts.of({
      owner: (platformId) =>
        sql<{ organizationId: string | null }>`SELECT organization_id AS "organizationId" FROM registry.platforms WHERE id = ${platformId}`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => row.organizationId ?? null)),
          Effect.orDie
        ),
      platformOf: (organizationId) =>
        sql<{ id: string }>`SELECT id FROM registry.platforms WHERE organization_id = ${organizationId} AND deleted_at IS NULL LIMIT 1`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => row.id)),
          Effect.orDie
        ),
      period: (platformId, at) =>
        Effect.gen(function*() {
          const subscribed = yield* sql<{ planId: string; start: Date | string; end: Date | string }>`SELECT plan_id AS "planId",
            current_period_start AS start, current_period_end AS "end" FROM billing.subscriptions WHERE platform_id = ${platformId}`
          const subscription = subscribed[0]
          if (subscription !== undefined && isPlanId(subscription.planId)) {
            return { start: new Date(subscription.start), end: new Date(subscription.end), allowances: allowancesOf(plans.get(subscription.planId)) }
          }
          const platform = yield* sql<{ tier: string }>`SELECT tier FROM registry.platforms WHERE id = ${platformId}`
          const tier = platform[0]?.tier
          return { ...calendarMonth(at), allowances: allowancesOf(plans.get(tier !== undefined && isPlanId(tier) ? tier : "free")) }
        }).pipe(Effect.orDie)
    })
  })
)

/** Billing's `UsageIngest` for a producer's context: the database and the plans of the environment. */
export const UsageIngestLive: Layer.Layer<UsageIngest, never, SqlClient.SqlClient> = UsageIngest.Default.pipe(
  Layer.provide(UsageAccountsOnDatabase),
  Layer.provide(Plans.layerConfig.pipe(Layer.orDie))
)
