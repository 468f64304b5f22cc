import { BillingMigrations, BillingPlatforms, Plans, UsageAccounts, UsageAccountsLive } from "@core/billing"
import { TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

/**
 * Whose usage, and which period (decision 0461): ownership from the registry through
 * `BillingPlatforms`, the period and the plan's allowances from the platform's subscription, and
 * — without one — the calendar month on the plan of the registry tier.
 */
const platform = (id: string, organizationId: string | null, tier: "free" | "starter" | "growth" | "scale") =>
  ({ id, organizationId, tier, status: "active" as const, updatedAt: new Date("2026-01-01T00:00:00Z") })

describe(`usage accounts on ${TestDatabase.driver}`, () => {
  const runtime = ManagedRuntime.make(
    UsageAccountsLive.pipe(
      Layer.provideMerge(Layer.mergeAll(Plans.layer(), BillingPlatforms.memory([platform("plt_sub", "org_a", "growth"), platform("plt_tier", "org_b", "scale"), platform("plt_ops", null, "free")]))),
      Layer.provideMerge(TestDatabase.layer([BillingMigrations]))
    )
  )
  const accounts = <A>(use: (accounts: UsageAccounts["Type"]) => Effect.Effect<A>) => runtime.runPromise(Effect.flatMap(UsageAccounts, use))

  beforeAll(() =>
    runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`INSERT INTO billing.subscriptions (id, platform_id, organization_id, customer_id, plan_id, status, current_period_start, current_period_end, created_at, updated_at)
        VALUES ('sub_1', 'plt_sub', 'org_a', 'cus_1', 'starter', 'active', '2026-03-15T09:30:00Z', '2026-04-15T09:30:00Z', now(), now())`)), 60_000)
  afterAll(() => runtime.dispose())

  it("answers the owner of a platform and the platform of an organization", async () => {
    expect(await accounts((a) => a.owner("plt_sub"))).toEqual(Option.some("org_a"))
    expect(await accounts((a) => a.owner("plt_ops"))).toEqual(Option.some(null))
    expect(await accounts((a) => a.owner("plt_none"))).toEqual(Option.none())
    expect(await accounts((a) => a.platformOf("org_b"))).toEqual(Option.some("plt_tier"))
    expect(await accounts((a) => a.platformOf("org_z"))).toEqual(Option.none())
  })

  it("takes the period and plan from the subscription, else the calendar month and the registry tier", async () => {
    expect(await accounts((a) => a.period("plt_sub", new Date("2026-03-20T00:00:00Z")))).toEqual({
      start: new Date("2026-03-15T09:30:00Z"), end: new Date("2026-04-15T09:30:00Z"),
      allowances: { requests: 1_000_000, resource_hours: 5_000, builds: 500 }
    })
    expect(await accounts((a) => a.period("plt_tier", new Date("2026-02-10T12:00:00Z")))).toEqual({
      start: new Date("2026-02-01T00:00:00Z"), end: new Date("2026-03-01T00:00:00Z"),
      allowances: { requests: 100_000_000, resource_hours: 150_000, builds: 10_000 }
    })
    expect((await accounts((a) => a.period("plt_none", new Date("2026-12-31T23:59:59Z")))).end).toEqual(new Date("2027-01-01T00:00:00Z"))
  })
})
