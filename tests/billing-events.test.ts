import { BillingConfig, BillingCycle, BillingMigrations, BillingPlatforms, BillingServices, PaymentProviderLocal, Plans, Subscriptions, UsageTotals } from "@core/billing"
import { EventsMigrations, EventsRepo, OutboxLive } from "@core/events"
import { CoreConfig, Ids, Rows } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TestCallers } from "./support/testCallers.js"

/**
 * Billing's own writes record their events with the real outbox, on PGlite and PostgreSQL, where
 * the gateway cannot reach them quickly: a platform gone from the registry cancels its
 * subscription (`subscription.canceled`); a period's renewal that cannot be charged finalizes its
 * invoice, tells `invoice.payment_failed` and moves the subscription past due
 * (`subscription.updated`); a platform of no organization tells no one.
 */
const at = new Date("2020-01-01T00:00:00Z")
const noUsage = Layer.succeed(UsageTotals, { totals: () => Effect.succeed({ requests: 0, resource_hours: 0, builds: 0 }) })

const layerOn = (driver: "pglite" | "pg") =>
  Layer.mergeAll(BillingServices).pipe(
    Layer.provideMerge(Layer.mergeAll(
      Plans.layer(),
      PaymentProviderLocal,
      BillingPlatforms.memory([
        { id: "plt_kept", organizationId: "org_bill", tier: "free", status: "active", updatedAt: at },
        { id: "plt_ops", organizationId: null, tier: "free", status: "active", updatedAt: at }
      ]),
      noUsage,
      OutboxLive.pipe(Layer.provide(EventsRepo.Default))
    )),
    Layer.provideMerge(Layer.mergeAll(
      TestCallers,
      Ids.layer,
      CoreConfig.layer({ NODE_ENV: "test", CORE_SECRET: "billing-events-secret-0123456789-abcdef" }),
      BillingConfig.layer({})
    )),
    Layer.provideMerge(TestDatabase.layer([BillingMigrations, EventsMigrations], { driver })),
    Layer.orDie
  )

describe.each(TestDatabase.drivers)("billing events on %s", (driver) => {
  let runtime: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<ReturnType<typeof layerOn>>, never>
  beforeAll(() => {
    runtime = ManagedRuntime.make(layerOn(driver))
  })
  afterAll(() => runtime?.dispose())

  const told = (platformId: string) =>
    runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<Record<string, unknown>>`SELECT type, organization_id, data FROM events.outbox WHERE platform_id = ${platformId} ORDER BY seq`))
      .then((rows) => rows.map((row) => ({ type: row.type as string, organizationId: row.organization_id, data: Rows.jsonObject(row.data) ?? {} })))

  it("a platform gone from the registry: subscription.created when billing met it, subscription.canceled when it ends; none for the operators' platform", async () => {
    await runtime.runPromise(Effect.flatMap(Subscriptions, (subscriptions) =>
      subscriptions.ensure({ id: "plt_gone", organizationId: "org_bill", tier: "free", status: "active", updatedAt: at })))
    await runtime.runPromise(Effect.flatMap(BillingCycle, (cycle) => cycle.reconcileAll()))
    const gone = await told("plt_gone")
    expect(gone.map((event) => [event.type, event.organizationId, event.data.status])).toEqual([
      ["subscription.created", "org_bill", "active"],
      ["subscription.canceled", "org_bill", "cancelled"]
    ])
    expect(gone[1].data).toMatchObject({ platformId: "plt_gone", tier: "free", cancelledAt: expect.any(String), cancelAtPeriodEnd: false })
    expect((await told("plt_kept")).map((event) => event.type)).toEqual(["subscription.created"])
    expect(await told("plt_ops")).toEqual([])
    // Meeting the platforms again changes nothing and tells nothing.
    await runtime.runPromise(Effect.flatMap(BillingCycle, (cycle) => cycle.reconcileAll()))
    expect(await told("plt_gone")).toHaveLength(2)
  })

  it("a renewal that cannot be charged: invoice.finalized, invoice.payment_failed, then subscription.updated (past due)", async () => {
    await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`UPDATE billing.subscriptions SET plan_id = 'starter', current_period_start = now() - interval '31 days',
        current_period_end = now() - interval '1 hour' WHERE platform_id = 'plt_kept'`))
    await runtime.runPromise(Effect.flatMap(BillingCycle, (cycle) => cycle.runDue()))
    const events = (await told("plt_kept")).slice(1)
    expect(events.map((event) => [event.type, event.data.status])).toEqual([
      ["invoice.finalized", "open"],
      ["invoice.payment_failed", "open"],
      ["subscription.updated", "past_due"]
    ])
    expect(events[0].data.id).toBe(events[1].data.id)
    expect(events[0].data).toMatchObject({ platformId: "plt_kept", amountDueMinor: expect.any(Number), amountPaidMinor: 0 })
    expect(events.every((event) => event.organizationId === "org_bill")).toBe(true)
  })
})
