import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { DEFAULT_PLANS, InvoiceLines, METERS, type Plan } from "../src/index.js"

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
})
