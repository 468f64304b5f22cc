import { Plans, UsageAccounts, UsageIngest, usageAccountsOver } from "@core/billing"
import { Ids } from "@core/kernel"
import { Platforms } from "@core/registry"
import type { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { viewOf } from "./BillingPlatformsLive.js"

/**
 * `UsageAccounts` for the producers outside the billing service (the gateway's request meter,
 * provisioning's resource-hours, deploys' builds): billing's own accounts (`usageAccountsOver`, the
 * period and plan from its subscriptions) over the registry's reads (`Platforms.find`,
 * `Platforms.ofOrganization`), without billing's writes to the registry that these contexts never make.
 */
export const UsageAccountsForProducers: Layer.Layer<UsageAccounts, never, SqlClient.SqlClient | Plans> = Layer.effect(
  UsageAccounts,
  Effect.flatMap(Platforms, (platforms) =>
    usageAccountsOver({
      find: (id) => Effect.map(platforms.find(id), Option.map(viewOf)),
      ofOrganization: (organizationId) => Effect.map(platforms.ofOrganization(organizationId), Option.map(viewOf))
    }))
).pipe(Layer.provide(Platforms.Default.pipe(Layer.provide(Ids.layer))))

/** Billing's `UsageIngest` for a producer's context: the database and the plans of the environment. */
export const UsageIngestLive: Layer.Layer<UsageIngest, never, SqlClient.SqlClient> = UsageIngest.Default.pipe(
  Layer.provide(UsageAccountsForProducers),
  Layer.provide(Plans.layerConfig.pipe(Layer.orDie))
)
