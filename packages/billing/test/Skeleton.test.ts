import { Ids } from "@core/kernel"
import { makeHttpHarness, type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BillingMigrations, BillingRouter, DEFAULT_PLANS, Plans } from "../src/index.js"
import { TestCallers } from "../../../tests/support/testCallers.js"

const makeLayer = (driver: "pglite" | "pg") =>
  Layer.mergeAll(Plans.layer(), TestCallers, Ids.layer).pipe(Layer.provideMerge(TestDatabase.layer([BillingMigrations], { driver })))

/** The billing skeleton: migrations on each driver, the plans and the reserved route. */
for (const driver of TestDatabase.drivers) {
  describe(`billing skeleton on ${driver}`, () => {
    let h: HttpHarness<Layer.Layer.Success<ReturnType<typeof makeLayer>>>
    beforeAll(async () => {
      h = await makeHttpHarness(BillingRouter, makeLayer(driver))
    })
    afterAll(() => h.dispose())

    it("migrates the billing schema", async () => {
      const tables = await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = 'billing' ORDER BY table_name`))
      expect(tables.map((row) => row.table_name)).toEqual(expect.arrayContaining(["customers", "invoice_lines", "invoices", "operator_log", "subscriptions"]))
    })

    it("answers the four plans with integer prices and allowances, to anyone", async () => {
      const response = await h.fetch("/plans")
      expect(response.status).toBe(200)
      const plans = await response.json()
      expect(plans.map((plan: { id: string }) => plan.id)).toEqual(["free", "starter", "growth", "scale"])
      expect(plans).toEqual(JSON.parse(JSON.stringify(DEFAULT_PLANS)))
      for (const plan of plans) expect(Number.isInteger(plan.priceMinor)).toBe(true)
    })

    it("answers the reserved POST /subscription with 501 NOT_IMPLEMENTED at both paths, 401 without credentials", async () => {
      for (const path of ["/subscription", "/api/billing/subscription"]) {
        const response = await h.fetch(path, { method: "POST", token: "usr_owner" })
        expect(response.status).toBe(501)
        expect((await response.json()).error).toMatchObject({ code: "NOT_IMPLEMENTED", details: null })
      }
      expect((await h.fetch("/subscription", { method: "POST" })).status).toBe(401)
    })
  })
}
