import { Context, Effect, Layer } from "effect"
import type { Meter } from "../Plans.js"

/**
 * What invoices need of metering: a platform's usage per meter between two instants (`from`
 * inclusive, `to` exclusive). Metering implements it (`UsageTotalsLive`, `src/usage/`); invoices
 * compute each meter's overage from it.
 */
export class UsageTotals extends Context.Tag("@core/billing/UsageTotals")<UsageTotals, {
  readonly totals: (platformId: string, from: Date, to: Date) => Effect.Effect<Record<Meter, number>>
}>() {
  /** No usage at all: for tests of the parts that do not meter. */
  static readonly zero: Layer.Layer<UsageTotals> = Layer.succeed(UsageTotals, {
    totals: () => Effect.succeed({ requests: 0, resource_hours: 0, builds: 0 })
  })
}
