import { type HttpHarness, makeHttpHarness, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, type Layer } from "effect"
import Stripe from "stripe"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BillingRouter } from "../src/index.js"
import { billingLayer, WEBHOOK_SECRET } from "./Support.js"

const event = (id: string, type = "invoice.paid") =>
  JSON.stringify({ id, object: "event", type, created: 1_764_000_000, data: { object: { id: "in_1", object: "invoice" } } })

/** `POST /webhooks/stripe`: signed fixtures (`generateTestHeaderString`), verified on the raw body, processed once. */
for (const driver of TestDatabase.drivers) {
  describe(`Stripe webhooks on ${driver}`, () => {
    let h: HttpHarness<Layer.Layer.Success<ReturnType<typeof billingLayer>>>
    const post = (payload: string, signature?: string) =>
      h.fetch("/webhooks/stripe", { method: "POST", body: payload, headers: { "content-type": "application/json", ...(signature === undefined ? {} : { "stripe-signature": signature }) } })
    const signed = (payload: string, secret = WEBHOOK_SECRET) => Stripe.webhooks.generateTestHeaderString({ payload, secret })
    const rows = () => h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: string }>`SELECT id FROM billing.webhook_events ORDER BY id`))

    beforeAll(async () => {
      h = await makeHttpHarness(BillingRouter, billingLayer(driver))
    })
    afterAll(() => h.dispose())

    it("accepts a signed event once: a second delivery answers duplicate and records nothing more", async () => {
      const payload = event("evt_once")
      const first = await post(payload, signed(payload))
      expect(first.status).toBe(200)
      expect(await first.json()).toEqual({ received: true, id: "evt_once", type: "invoice.paid", duplicate: false })
      const again = await post(payload, signed(payload))
      expect(await again.json()).toMatchObject({ id: "evt_once", duplicate: true })
      expect((await rows()).map((row) => row.id)).toEqual(["evt_once"])
    })

    it("refuses a forged or missing signature, and a body changed after signing (400), recording nothing", async () => {
      const payload = event("evt_forged")
      for (const [body, signature] of [
        [payload, signed(payload, "whsec_someone_else")],
        [payload, undefined],
        [payload, "t=1,v1=deadbeef"],
        [event("evt_forged", "invoice.payment_failed"), signed(payload)]
      ] as const) {
        const response = await post(body, signature)
        expect(response.status).toBe(400)
        expect((await response.json()).error.code).toBe("VALIDATION_ERROR")
      }
      expect((await rows()).map((row) => row.id)).not.toContain("evt_forged")
    })

    it("takes deliveries in any order, each once", async () => {
      const payloads = ["evt_c", "evt_a", "evt_b", "evt_a", "evt_c"].map((id) => event(id))
      const answers = await Promise.all(payloads.map(async (payload) => (await post(payload, signed(payload))).json()))
      expect(answers.filter((answer) => !answer.duplicate).map((answer) => answer.id).sort()).toEqual(["evt_a", "evt_b", "evt_c"])
      expect((await rows()).map((row) => row.id)).toEqual(["evt_a", "evt_b", "evt_c", "evt_once"])
    })
  })
}
