import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { DEFAULT_PLANS, InvoiceLines, METERS, type Plan, type ProviderInvoice } from "../src/index.js"

const plan = fc.constantFrom(...DEFAULT_PLANS)
const usage = fc.record({
  requests: fc.nat({ max: 500_000_000 }),
  resource_hours: fc.nat({ max: 1_000_000 }),
  builds: fc.nat({ max: 100_000 })
})
const DAY = 86_400_000

/** An invoice total is always the sum of its lines (issue 14's property), in integer minor units. */
describe("invoice lines", () => {
  it("a period's total equals the sum of its lines, is an integer, never negative, and uses no more credit than the balance", () => {
    fc.assert(fc.property(plan, usage, fc.nat({ max: 10_000_000 }), fc.boolean(), (p: Plan, used, balance, trialing) => {
      const lines = InvoiceLines.periodLines({ plan: p, trialing, usage: used, balanceMinor: balance })
      const total = InvoiceLines.totalOf(lines)
      expect(total).toBe(lines.reduce((sum, line) => sum + line.amountMinor, 0))
      expect(Number.isInteger(total)).toBe(true)
      expect(total).toBeGreaterThanOrEqual(0)
      for (const line of lines) {
        expect(Number.isInteger(line.amountMinor)).toBe(true)
        if (line.kind !== "credit") expect(line.amountMinor).toBe(line.quantity * line.unitAmountMinor)
      }
      const credit = lines.find((line) => line.kind === "credit")
      expect(-(credit?.amountMinor ?? 0)).toBeLessThanOrEqual(balance)
    }), { numRuns: 500 })
  })

  it("over a random series of tier changes, each charge is the sum of its lines, and the credit never exceeds what was paid for the days left", () => {
    fc.assert(fc.property(fc.array(fc.tuple(plan, fc.integer({ min: 0, max: 40 })), { minLength: 1, maxLength: 12 }), (changes) => {
      const start = new Date("2026-01-01T00:00:00Z")
      const end = new Date("2026-02-01T00:00:00Z")
      let current = DEFAULT_PLANS[0]!
      for (const [next, day] of changes) {
        const at = new Date(start.getTime() + Math.min(day, 31) * DAY + 3_600_000)
        const lines = InvoiceLines.prorationLines({ from: current, to: next, periodStart: start, periodEnd: end, at, trialing: false })
        const total = InvoiceLines.totalOf(lines)
        expect(total).toBe(lines.reduce((sum, line) => sum + line.amountMinor, 0))
        expect(Number.isInteger(total)).toBe(true)
        const unused = lines.find((line) => line.description.startsWith("Unused"))
        expect(-(unused?.amountMinor ?? 0)).toBeLessThanOrEqual(current.priceMinor)
        current = next
      }
    }), { numRuns: 300 })
  })

  it("bills overage by started block beyond the allowance, per meter", () => {
    const starter = DEFAULT_PLANS.find((p) => p.id === "starter")!
    expect(InvoiceLines.overageLine(starter, "requests", 1_000_000)).toBeUndefined()
    expect(InvoiceLines.overageLine(starter, "requests", 1_000_001)).toMatchObject({ quantity: 1, amountMinor: 50 })
    expect(InvoiceLines.overageLine(starter, "builds", 503)).toMatchObject({ quantity: 3, amountMinor: 30 })
    expect(METERS.map((meter) => InvoiceLines.overageLine(DEFAULT_PLANS[0]!, meter, 10 ** 9))).toEqual([undefined, undefined, undefined])
  })

  it("a Stripe invoice's lines as billing's: kinds by origin, the credit Stripe applied and any discount as lines, the total their sum (decision 0449)", () => {
    const at = new Date("2026-01-01T00:00:00Z")
    const line = (id: string, amountMinor: number, extra: Partial<ProviderInvoice["lines"][number]> = {}) =>
      ({ id, amountMinor, description: id, quantity: 1, proration: false, source: "subscription", metadata: {}, periodStart: at, periodEnd: at, ...extra }) as const
    const invoice = (lines: ProviderInvoice["lines"], totalMinor: number, startingBalanceMinor = 0): ProviderInvoice => ({
      id: "in_1", customerId: "cus_1", subscriptionId: "sub_1", status: "paid", amountDueMinor: 0, amountPaidMinor: 0, attempted: true, createdAt: at,
      currency: "usd", totalMinor, startingBalanceMinor, billingReason: "subscription_cycle", lines, periodStart: at, periodEnd: at, finalizedAt: at, paidAt: at
    })
    const mapped = InvoiceLines.mirroredLines(invoice([
      line("base", 9_900, { quantity: 3 }),
      line("unused", -1_234, { proration: true }),
      line("overage", 1_000, { source: "invoice_item", metadata: { meter: "requests", quantity: "25" } }),
      line("refund", -500, { source: "invoice_item" }),
      line("odd", 1_001, { quantity: 2 })
    ], 9_900 + -1_234 + 1_000 - 500 + 1_001 - 100, -20_000))
    expect(mapped.map((l) => [l.kind, l.meter, l.quantity, l.unitAmountMinor, l.amountMinor])).toEqual([
      ["base", null, 3, 3_300, 9_900],
      ["proration", null, 1, -1_234, -1_234],
      ["overage", "requests", 25, 40, 1_000],
      ["credit", null, 1, -500, -500],
      ["base", null, 1, 1_001, 1_001],
      ["credit", null, 1, -100, -100],
      ["credit", null, 1, -10_067, -10_067]
    ])
    expect(InvoiceLines.totalOf(mapped)).toBe(0)
    fc.assert(fc.property(fc.array(fc.integer({ min: -100_000, max: 100_000 }), { maxLength: 8 }), fc.integer({ min: -50_000, max: 0 }), fc.integer({ min: -1_000, max: 1_000 }), (amounts, balance, adjustment) => {
      const lines = amounts.map((amount, index) => line(`l${index}`, amount))
      const total = amounts.reduce((sum, amount) => sum + amount, 0) + adjustment
      const result = InvoiceLines.mirroredLines(invoice(lines, total, balance))
      const applied = total > 0 ? Math.min(total, -balance) : 0
      expect(InvoiceLines.totalOf(result)).toBe(total - applied)
      for (const l of result) expect(l.amountMinor).toBe(l.quantity * l.unitAmountMinor)
    }), { numRuns: 300 })
  })
})
