import { verbOf } from "../args.js"
import { type CommandContext, usageIn } from "../spec.js"
import { spec } from "./billing.spec.js"
import { runInvoices, runPlans, runStatus, runUpgrade } from "./billing-core.js"
import { runUsage } from "./billing-usage.js"

const VERBS = ["status", "plans", "usage", "invoices", "upgrade"] as const

/**
 * `core billing <verb>`: billing (docs/billing.md). `status`: the subscription; `plans`: prices and
 * allowances; `usage`: the period against the allowances and a daily chart; `invoices`: newest
 * first; `upgrade`: a free platform to a paid plan.
 */
export const run = async (context: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(context.argv, VERBS, spec.usage)
  const usage = usageIn(spec, verb)
  switch (verb) {
    case "status":
      return runStatus(context, rest, usage)
    case "plans":
      return runPlans(context, rest, usage)
    case "invoices":
      return runInvoices(context, rest, usage)
    case "upgrade":
      return runUpgrade(context, rest, usage)
    case "usage":
      return runUsage(context, rest, usage)
  }
}
