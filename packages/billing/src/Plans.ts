import { Config, Context, Effect, Layer } from "effect"

/** A metered quantity (DESIGN §7): requests through the gateway, resource-hours from provisioning, builds from deploys. */
export type Meter = "requests" | "resource_hours" | "builds"

/** Every meter, in the order invoices list their overage lines. */
export const METERS: ReadonlyArray<Meter> = ["requests", "resource_hours", "builds"]

/** A plan's tier: the registry platform's `tier` follows it. */
export type PlanId = "free" | "starter" | "growth" | "scale"

/** Every plan, cheapest first. */
export const PLAN_IDS: ReadonlyArray<PlanId> = ["free", "starter", "growth", "scale"]

/** What a plan includes each period before overage is charged. */
export interface Allowances {
  readonly requests: number
  readonly resourceHours: number
  readonly builds: number
}

/** The overage price of one unit beyond the allowance, in minor units per `unit` units. */
export interface OveragePrice {
  /** Minor units charged per block of `per` units beyond the allowance. */
  readonly priceMinor: number
  /** The size of a block (1,000 requests, 1 resource-hour, 1 build). */
  readonly per: number
}

/** A plan (DESIGN §7): price in integer minor units per month, allowances and overage prices. */
export interface Plan {
  readonly id: PlanId
  readonly name: string
  /** The monthly price in minor units (cents): an integer, never a float. */
  readonly priceMinor: number
  readonly currency: "usd"
  readonly interval: "month"
  readonly allowances: Allowances
  readonly overage: Readonly<Record<Meter, OveragePrice>>
}

/** The allowance of a plan for one meter. */
export const allowanceOf = (plan: Plan, meter: Meter): number =>
  meter === "requests" ? plan.allowances.requests : meter === "resource_hours" ? plan.allowances.resourceHours : plan.allowances.builds

const overage = (requestsPer1000: number, perResourceHour: number, perBuild: number): Plan["overage"] => ({
  requests: { priceMinor: requestsPer1000, per: 1000 },
  resource_hours: { priceMinor: perResourceHour, per: 1 },
  builds: { priceMinor: perBuild, per: 1 }
})

/**
 * The default plans (decision 0430). `free` charges no overage: its allowance is a limit that
 * raises alerts, the paid plans bill what goes beyond theirs.
 */
export const DEFAULT_PLANS: ReadonlyArray<Plan> = [
  {
    id: "free",
    name: "Free",
    priceMinor: 0,
    currency: "usd",
    interval: "month",
    allowances: { requests: 100_000, resourceHours: 750, builds: 100 },
    overage: overage(0, 0, 0)
  },
  {
    id: "starter",
    name: "Starter",
    priceMinor: 2_900,
    currency: "usd",
    interval: "month",
    allowances: { requests: 1_000_000, resourceHours: 5_000, builds: 500 },
    overage: overage(50, 2, 10)
  },
  {
    id: "growth",
    name: "Growth",
    priceMinor: 9_900,
    currency: "usd",
    interval: "month",
    allowances: { requests: 10_000_000, resourceHours: 25_000, builds: 2_500 },
    overage: overage(40, 2, 8)
  },
  {
    id: "scale",
    name: "Scale",
    priceMinor: 49_900,
    currency: "usd",
    interval: "month",
    allowances: { requests: 100_000_000, resourceHours: 150_000, builds: 10_000 },
    overage: overage(30, 1, 5)
  }
]

const nonNegativeInt = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: "must be a whole number of at least 0", validation: (n) => n >= 0 }),
    Config.withDefault(fallback)
  )

/**
 * One plan's settings from the environment: `BILLING_PLAN_<ID>_PRICE_MINOR`,
 * `…_REQUESTS`, `…_RESOURCE_HOURS`, `…_BUILDS` override the defaults.
 */
const planConfig = (plan: Plan): Config.Config<Plan> => {
  const prefix = `BILLING_PLAN_${plan.id.toUpperCase()}_`
  return Config.all({
    priceMinor: nonNegativeInt(`${prefix}PRICE_MINOR`, plan.priceMinor),
    requests: nonNegativeInt(`${prefix}REQUESTS`, plan.allowances.requests),
    resourceHours: nonNegativeInt(`${prefix}RESOURCE_HOURS`, plan.allowances.resourceHours),
    builds: nonNegativeInt(`${prefix}BUILDS`, plan.allowances.builds)
  }).pipe(Config.map(({ priceMinor, ...allowances }) => ({ ...plan, priceMinor, allowances })))
}

/** The plans on sale, and one by id. */
export interface PlanTable {
  readonly all: ReadonlyArray<Plan>
  readonly get: (id: PlanId) => Plan
}

/** The plan table as a service value. */
export const make = (plans: ReadonlyArray<Plan>): PlanTable => {
  const byId = new Map(plans.map((plan) => [plan.id, plan]))
  return {
    all: plans,
    get: (id) => {
      const plan = byId.get(id)
      if (plan === undefined) throw new Error(`no plan ${id}`)
      return plan
    }
  }
}

/** The plans this deployment sells: the defaults, each field overridable from configuration. */
export class Plans extends Context.Tag("@core/billing/Plans")<Plans, PlanTable>() {
  /** From explicit plans (tests); the defaults when none are given. */
  static readonly layer = (plans: ReadonlyArray<Plan> = DEFAULT_PLANS): Layer.Layer<Plans> => Layer.succeed(Plans, make(plans))

  /** The defaults with the `BILLING_PLAN_*` overrides of the environment. */
  static readonly layerConfig = Layer.effect(
    Plans,
    Effect.map(Effect.all(DEFAULT_PLANS.map(planConfig)), make)
  )
}

/** Whether a string names a plan. */
export const isPlanId = (value: string): value is PlanId => (PLAN_IDS as ReadonlyArray<string>).includes(value)
