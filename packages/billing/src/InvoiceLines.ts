import { allowanceOf, METERS, type Meter, type Plan } from "./Plans.js"
import type { ProviderInvoice } from "./ports/PaymentProvider.js"

/** One line of an invoice, in integer minor units. */
export interface Line {
  readonly kind: "base" | "overage" | "credit" | "proration"
  readonly description: string
  readonly meter: Meter | null
  readonly quantity: number
  readonly unitAmountMinor: number
  readonly amountMinor: number
}

const METER_NAMES: Readonly<Record<Meter, string>> = { requests: "requests", resource_hours: "resource-hours", builds: "builds" }

/**
 * The overage line of one meter: whole blocks beyond the allowance (a started block counts), each
 * at the plan's overage price. `undefined` when nothing is over or the plan charges no overage.
 */
export const overageLine = (plan: Plan, meter: Meter, used: number, allowance = allowanceOf(plan, meter)): Line | undefined => {
  const over = Math.max(0, Math.floor(used) - allowance)
  const price = plan.overage[meter]
  if (over === 0 || price.priceMinor === 0) return undefined
  const blocks = Math.ceil(over / price.per)
  const unit = price.per === 1 ? "" : ` per ${price.per.toLocaleString("en-US")}`
  return {
    kind: "overage",
    description: `${over.toLocaleString("en-US")} ${METER_NAMES[meter]} over the ${plan.name} allowance${unit}`,
    meter,
    quantity: blocks,
    unitAmountMinor: price.priceMinor,
    amountMinor: blocks * price.priceMinor
  }
}

/** The base price of a period on a plan (none while trialing, or on a free plan). */
export const baseLine = (plan: Plan, trialing: boolean): Line | undefined =>
  plan.priceMinor === 0 ? undefined : {
    kind: "base",
    description: trialing ? `${plan.name} plan (trial)` : `${plan.name} plan`,
    meter: null,
    quantity: 1,
    unitAmountMinor: trialing ? 0 : plan.priceMinor,
    amountMinor: trialing ? 0 : plan.priceMinor
  }

/** A credit line using up to `balanceMinor` of the customer's credit against what is due. */
export const creditLine = (dueMinor: number, balanceMinor: number): Line | undefined => {
  const used = Math.min(Math.max(0, dueMinor), Math.max(0, balanceMinor))
  return used === 0 ? undefined : { kind: "credit", description: "Credit applied from the balance", meter: null, quantity: 1, unitAmountMinor: -used, amountMinor: -used }
}

/** The sum of lines: an invoice's total, always (decision 0435). */
export const totalOf = (lines: ReadonlyArray<{ readonly amountMinor: number }>): number => lines.reduce((sum, line) => sum + line.amountMinor, 0)

/**
 * A period's lines: the base price, each meter's overage, then the credit the customer's balance
 * covers. The total is their sum, never negative.
 */
export const periodLines = (input: {
  readonly plan: Plan
  readonly trialing: boolean
  readonly usage: Readonly<Record<Meter, number>>
  readonly balanceMinor: number
}): ReadonlyArray<Line> => {
  const charged = [
    baseLine(input.plan, input.trialing),
    ...METERS.map((meter) => (input.trialing ? undefined : overageLine(input.plan, meter, input.usage[meter] ?? 0)))
  ].filter((line): line is Line => line !== undefined)
  const credit = creditLine(totalOf(charged), input.balanceMinor)
  return credit === undefined ? charged : [...charged, credit]
}

const DAY = 86_400_000

/** Whole days from one instant to another, a started day counting (at least 0). */
const daysBetween = (from: Date, to: Date): number => Math.max(0, Math.ceil((to.getTime() - from.getTime()) / DAY))

/**
 * The proration of a change from one plan to another at `at` (decision 0434): by whole days left
 * in the period, so a preview and the change made the same day agree to the cent. A credit for the
 * unused days of the old plan, a charge for them on the new one; none while trialing.
 */
export const prorationLines = (input: {
  readonly from: Plan
  readonly to: Plan
  readonly periodStart: Date
  readonly periodEnd: Date
  readonly at: Date
  readonly trialing: boolean
}): ReadonlyArray<Line> => {
  if (input.trialing) return []
  const total = Math.max(1, daysBetween(input.periodStart, input.periodEnd))
  const left = Math.min(total, daysBetween(input.at, input.periodEnd))
  if (left === 0) return []
  const unused = Math.round((input.from.priceMinor * left) / total)
  const remaining = Math.round((input.to.priceMinor * left) / total)
  const lines: Array<Line> = []
  if (unused > 0) {
    lines.push({ kind: "proration", description: `Unused time on ${input.from.name} (${left} of ${total} days)`, meter: null, quantity: 1, unitAmountMinor: -unused, amountMinor: -unused })
  }
  if (remaining > 0) {
    lines.push({ kind: "proration", description: `Remaining time on ${input.to.name} (${left} of ${total} days)`, meter: null, quantity: 1, unitAmountMinor: remaining, amountMinor: remaining })
  }
  return lines
}

/** A line whose amount is `quantity × unitAmountMinor` when the quantity divides it, else one unit of the amount. */
const unitLine = (kind: Line["kind"], description: string, meter: Meter | null, quantity: number, amountMinor: number): Line => {
  const units = Number.isInteger(quantity) && quantity > 0 && amountMinor % quantity === 0 ? quantity : 1
  return { kind, description, meter, quantity: units, unitAmountMinor: amountMinor / units, amountMinor }
}

/**
 * The lines of a Stripe invoice as billing's (decision 0449): a proration line is `proration`, an
 * invoice item billing sent for a meter's overage (`metadata.meter`) is `overage`, a subscription's
 * price is `base` (an item added at Stripe: `base`, or `credit` when negative); what Stripe took off
 * the total (discounts) or added (taxes) is one more line, and the customer credit Stripe applied
 * is a `credit` line — so the total, the sum of the lines, is what was due, as on billing's own.
 */
export const mirroredLines = (invoice: ProviderInvoice): ReadonlyArray<Line> => {
  const lines: Array<Line> = invoice.lines.map((line) => {
    const meter = METERS.find((name) => name === line.metadata.meter) ?? null
    const description = line.description.slice(0, 500) || "Stripe invoice line"
    if (line.proration) return unitLine("proration", description, null, 1, line.amountMinor)
    if (meter !== null) return unitLine("overage", description, meter, Number(line.metadata.quantity ?? 1), line.amountMinor)
    if (line.source === "invoice_item" && line.amountMinor < 0) return unitLine("credit", description, null, 1, line.amountMinor)
    return unitLine("base", description, null, line.quantity, line.amountMinor)
  })
  const difference = invoice.totalMinor - totalOf(lines)
  if (difference !== 0) lines.push(unitLine(difference < 0 ? "credit" : "base", difference < 0 ? "Discounts at Stripe" : "Taxes at Stripe", null, 1, difference))
  const applied = invoice.totalMinor > 0 && invoice.startingBalanceMinor < 0 ? Math.min(invoice.totalMinor, -invoice.startingBalanceMinor) : 0
  if (applied > 0) lines.push({ kind: "credit", description: "Credit applied from the balance", meter: null, quantity: 1, unitAmountMinor: -applied, amountMinor: -applied })
  return lines
}

/**
 * The share of the period `[periodStart, periodEnd)` that has passed at `at`, by the second as
 * Stripe prorates (0 to 1): what a subscription cancelled at once used of its last period.
 */
export const usedShare = (periodStart: Date, periodEnd: Date, at: Date): number => {
  const total = Math.max(1, Math.floor(periodEnd.getTime() / 1000) - Math.floor(periodStart.getTime() / 1000))
  const used = Math.floor(at.getTime() / 1000) - Math.floor(periodStart.getTime() / 1000)
  return Math.min(1, Math.max(0, used / total))
}

/** A plan's allowance of one meter for the share of a period used (rounded to a whole unit). */
export const proratedAllowance = (plan: Plan, meter: Meter, share: number): number => Math.round(allowanceOf(plan, meter) * share)

/**
 * The final invoice of a subscription billing charges itself, cancelled at once at `at` (decision
 * 0585): the customer pays for the share of the period used, as Stripe's final invoice
 * (`prorate`) leaves it — the base price for that share (billing invoices in arrears, so what
 * Stripe credits as unused time is simply not charged) and the overage beyond the allowance for
 * that share, each by the second; then the credit the balance covers. Nothing while trialing.
 */
export const finalLines = (input: {
  readonly plan: Plan
  readonly trialing: boolean
  readonly periodStart: Date
  readonly periodEnd: Date
  readonly at: Date
  readonly usage: Readonly<Record<Meter, number>>
  readonly balanceMinor: number
}): ReadonlyArray<Line> => {
  if (input.trialing) return []
  const share = usedShare(input.periodStart, input.periodEnd, input.at)
  const day = (at: Date) => at.toISOString().slice(0, 10)
  const base = Math.round(input.plan.priceMinor * share)
  const charged: Array<Line> = base === 0 ? [] : [{
    kind: "base",
    description: `${input.plan.name} plan, ${day(input.periodStart)} to ${day(input.at)} (${(share * 100).toFixed(1)}% of the period)`,
    meter: null,
    quantity: 1,
    unitAmountMinor: base,
    amountMinor: base
  }]
  for (const meter of METERS) {
    const line = overageLine(input.plan, meter, input.usage[meter] ?? 0, proratedAllowance(input.plan, meter, share))
    if (line !== undefined) charged.push(line)
  }
  const credit = creditLine(totalOf(charged), input.balanceMinor)
  return credit === undefined ? charged : [...charged, credit]
}
