import { type HttpHarness, makeHttpHarness, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, type Layer, Option, TestClock, TestContext } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BillingCycle, BillingPlatforms, BillingRouter, PaymentProvider, Subscriptions, SubscriptionsRepo } from "../src/index.js"
import { billingLayer, usageByPlatform } from "./Support.js"

type Layered = Layer.Layer.Success<ReturnType<typeof billingLayer>>

const DAY = 86_400_000

/**
 * Decisions 0585 and 0586 with the local provider: a subscription cancelled at once is billed for
 * the share of its last period used (base and allowance prorated by the second), charged at once;
 * declined, it is retried at 3, 7 and 14 days, then uncollectible and the platform suspended, and a
 * new card pays it and restores the platform. Time is the test clock's.
 */
for (const driver of TestDatabase.drivers) {
  describe(`final invoices with the local provider on ${driver}`, () => {
    let h: HttpHarness<Layered>
    // Before the real clock, so that the in-memory registry's changes (stamped now) are newer than billing's rows.
    const T0 = Date.parse("2026-03-10T12:00:00Z")
    const sql = (text: string) => h.run(Effect.flatMap(SqlClient.SqlClient, (client) => client.unsafe(text))) as Promise<Array<any>>
    const json = async (response: Response) => ({ status: response.status, body: await response.json() })
    /** Run `effect` with the clock at `millis`. */
    const at = <A>(millis: number, effect: Effect.Effect<A, never, Layered>) =>
      h.run(Effect.gen(function*() {
        yield* TestClock.setTime(millis)
        return yield* effect
      }).pipe(Effect.provide(TestContext.TestContext)))
    const platform = (id: string) => h.run(Effect.flatMap(BillingPlatforms, (platforms) => platforms.find(id))).then(Option.getOrThrow)
    const ensure = (id: string, millis: number) => platform(id).then((view) => at(millis, Effect.flatMap(Subscriptions, (subscriptions) => subscriptions.ensure(view))))
    /** A paid plan whose period runs from `startDays` before T0 for 30 days, a card of `card` on file. */
    const onPlan = async (platformId: string, plan: string, startDays: number, card: string) => {
      const row = await ensure(platformId, T0 - 40 * DAY)
      await h.run(Effect.flatMap(PaymentProvider, (provider) =>
        Effect.flatMap(provider.attachPaymentMethod(row.customerId, card), (method) => provider.setDefaultPaymentMethod(row.customerId, method.id))))
      const start = new Date(T0 - startDays * DAY).toISOString()
      const end = new Date(T0 - startDays * DAY + 30 * DAY).toISOString()
      await sql(`UPDATE billing.subscriptions SET plan_id = '${plan}', current_period_start = '${start}', current_period_end = '${end}', updated_at = '${new Date(T0 - 40 * DAY).toISOString()}' WHERE id = '${row.id}'`)
      return row
    }
    const invoicesOf = async (platformId: string, token: string) => (await json(await h.fetch(`/api/billing/invoices?platformId=${platformId}`, { token }))).body.data
    const logOf = async (target: string) => (await json(await h.fetch(`/operator/log?target=${target}`, { token: "usr_operator" }))).body

    beforeAll(async () => {
      h = await makeHttpHarness(BillingRouter, billingLayer(driver))
    })
    afterAll(() => h.dispose())

    it("set to free in the registry mid-period: the used share of the base and the overage beyond the allowance's share, charged at once, made once", async () => {
      const row = await onPlan("plt_a", "growth", 10, "pm_card_visa")
      usageByPlatform.set("plt_a", { requests: 4_000_000, resource_hours: 0, builds: 0 })
      await h.run(Effect.flatMap(BillingPlatforms, (platforms) => platforms.setTier("plt_a", "free")))

      const after = await ensure("plt_a", T0)
      expect(after).toMatchObject({ planId: "free", status: "active", overridden: true, currentPeriodStart: new Date(T0), currentPeriodEnd: new Date("2026-04-10T12:00:00Z") })
      const lines = [
        { kind: "base", description: "Growth plan, 2026-02-28 to 2026-03-10 (33.3% of the period)", meter: null, quantity: 1, unitAmountMinor: 3_300, amountMinor: 3_300 },
        // 10,000,000 × 10/30 = 3,333,333 included: 666,667 over, 667 started blocks at 40.
        { kind: "overage", description: "666,667 requests over the Growth allowance per 1,000", meter: "requests", quantity: 667, unitAmountMinor: 40, amountMinor: 26_680 }
      ]
      const listed = await invoicesOf("plt_a", "usr_owner")
      expect(listed).toHaveLength(1)
      expect(listed[0]).toMatchObject({
        subscriptionId: row.id,
        status: "paid",
        description: "Final invoice, Growth plan, 2026-02-28 to 2026-03-10",
        periodStart: "2026-02-28T12:00:00.000Z",
        periodEnd: "2026-03-10T12:00:00.000Z",
        totalMinor: 29_980,
        amountDueMinor: 29_980,
        amountPaidMinor: 29_980,
        lines,
        amountRefundedMinor: 0,
        amountCreditedMinor: 0,
        refunds: [],
        creditNotes: [],
        collection: null
      })
      expect(await sql(`SELECT amount_minor::int AS amount, status, invoice_id FROM billing.charges WHERE customer_id = '${row.customerId}'`))
        .toEqual([{ amount: 29_980, status: "succeeded", invoice_id: listed[0].id }])
      expect((await logOf(row.id)).data.map((entry: { action: string; actor: string }) => [entry.action, entry.actor])).toEqual([["registry.tier", "registry"]])

      // Met again (a read, the cycle): nothing more is invoiced or charged.
      await ensure("plt_a", T0 + 1_000)
      await at(T0 + 2_000, Effect.flatMap(BillingCycle, (cycle) => cycle.reconcileAll()))
      expect(await invoicesOf("plt_a", "usr_owner")).toEqual(listed)
      expect(await sql(`SELECT count(*)::int AS n FROM billing.charges WHERE customer_id = '${row.customerId}'`)).toEqual([{ n: 1 }])
      usageByPlatform.delete("plt_a")
    })

    it("ended at once (a deleted platform): the used share of the base, cancelled; another tenant does not see the invoice", async () => {
      const row = await onPlan("plt_c", "scale", 3, "pm_card_visa")
      const ended = await at(T0, Effect.flatMap(Subscriptions, (subscriptions) => subscriptions.endNow(row, "registry")))
      expect(ended).toMatchObject({ status: "cancelled", cancelledAt: new Date(T0), providerSubscriptionId: null })
      const [invoice] = await sql(`SELECT id, kind, status, total_minor::int AS total FROM billing.invoices WHERE subscription_id = '${row.id}'`)
      expect(invoice).toMatchObject({ kind: "final", status: "paid", total: 4_990 })
      expect((await h.fetch(`/api/billing/invoices/${invoice.id}?platformId=plt_c`, { token: "usr_owner" })).status).toBe(404)
      // Twice: the subscription is cancelled, nothing more.
      await at(T0 + 1_000, Effect.flatMap(Subscriptions, (subscriptions) => subscriptions.endNow(row, "registry")))
      expect(await sql(`SELECT count(*)::int AS n FROM billing.invoices WHERE subscription_id = '${row.id}'`)).toEqual([{ n: 1 }])
    })

    it("declined: retried at 3, 7 and 14 days, each in the operator log; then uncollectible and the platform suspended; a new card pays it and restores the platform", async () => {
      const row = await onPlan("plt_b", "starter", 15, "pm_card_chargeDeclined")
      usageByPlatform.set("plt_b", { requests: 0, resource_hours: 0, builds: 600 })
      await h.run(Effect.flatMap(BillingPlatforms, (platforms) => platforms.setTier("plt_b", "free")))
      await ensure("plt_b", T0)
      const [open] = await invoicesOf("plt_b", "usr_b_owner")
      // Half the period: 1,450 of the base, and 600 builds beyond 250 (half of 500) at 10.
      expect(open).toMatchObject({ status: "open", totalMinor: 4_950, amountDueMinor: 4_950, amountPaidMinor: 0 })
      expect(open.collection).toEqual({ state: "retrying", failedAttempts: 1, nextAttemptAt: new Date(T0 + 3 * DAY).toISOString(), lastFailure: "Your card was declined." })

      const retry = (millis: number) => at(millis, Effect.flatMap(BillingCycle, (cycle) => cycle.retryDue()))
      expect(await retry(T0 + 3 * DAY - 1)).toBe(0)
      expect(await retry(T0 + 3 * DAY)).toBe(1)
      expect(await retry(T0 + 3 * DAY + 1)).toBe(0)
      expect((await invoicesOf("plt_b", "usr_b_owner"))[0].collection).toMatchObject({ state: "retrying", failedAttempts: 2, nextAttemptAt: new Date(T0 + 7 * DAY).toISOString() })
      expect(await retry(T0 + 7 * DAY)).toBe(1)
      expect((await platform("plt_b")).status).toBe("active")
      expect(await retry(T0 + 14 * DAY)).toBe(1)

      const given = (await invoicesOf("plt_b", "usr_b_owner"))[0]
      expect(given).toMatchObject({ status: "uncollectible", amountPaidMinor: 0, collection: { state: "uncollectible", failedAttempts: 4, nextAttemptAt: null, lastFailure: "Your card was declined." } })
      expect((await platform("plt_b")).status).toBe("suspended")
      expect(await retry(T0 + 30 * DAY)).toBe(0)
      const steps = (await logOf(open.id)).data.map((entry: { action: string; actor: string; after: { failedAttempts: number; status: string } }) => [entry.action, entry.actor, entry.after.failedAttempts, entry.after.status])
      expect(steps).toEqual([
        ["invoice.payment_failed", "registry", 1, "open"],
        ["invoice.retry", "scheduler", 2, "open"],
        ["invoice.retry", "scheduler", 3, "open"],
        ["invoice.retry", "scheduler", 4, "open"],
        ["invoice.uncollectible", "scheduler", 4, "uncollectible"]
      ])
      expect((await logOf("plt_b")).data.map((entry: { action: string; reason: string }) => [entry.action, entry.reason])).toEqual([["platform.suspend", `Final invoice ${open.id} uncollectible`]])
      expect(await sql(`SELECT count(*)::int AS n, bool_and(status = 'failed') AS failed FROM billing.charges WHERE customer_id = '${row.customerId}'`)).toEqual([{ n: 4, failed: true }])
      const overview = (await json(await h.fetch("/operator/overview", { token: "usr_operator" }))).body
      expect(overview).toMatchObject({ uncollectibleMinor: 4_950, collecting: 0 })

      // A new card in the portal: paid, and the platform restored.
      const portal = await json(await h.fetch("/portal", { method: "POST", token: "usr_b_owner", json: { returnUrl: "https://app.example.com/billing" } }))
      const path = new URL(portal.body.url).pathname.replace(/^\/api\/billing/, "")
      const changed = await h.fetch(`${path}/payment-method`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "card=4242424242424242", redirect: "manual" })
      expect(changed.status).toBe(303)
      expect((await invoicesOf("plt_b", "usr_b_owner"))[0]).toMatchObject({ status: "paid", amountPaidMinor: 4_950, collection: { state: "paid", failedAttempts: 4, nextAttemptAt: null, lastFailure: null } })
      expect((await platform("plt_b")).status).toBe("active")
      expect((await logOf("plt_b")).data.map((entry: { action: string; actor: string }) => [entry.action, entry.actor])).toEqual([["platform.suspend", "scheduler"], ["platform.restore", "customer"]])
      expect((await json(await h.fetch("/operator/overview", { token: "usr_operator" }))).body).toMatchObject({ uncollectibleMinor: 0, collecting: 0 })
      const repoRow = await h.run(Effect.flatMap(SubscriptionsRepo, (repo) => repo.byId(row.id))).then(Option.getOrThrow)
      expect(repoRow).toMatchObject({ planId: "free", status: "active" })
      usageByPlatform.delete("plt_b")
    })
  })
}
