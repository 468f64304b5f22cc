import { verbOf } from "../args.js"
import { findCommand, usageOf, type CommandContext } from "../registry.js"
import { runUsage } from "./billing-usage.js"

/** `core billing <verb>`: billing (docs/billing.md). `usage`: the period against the allowances and a daily chart. */
export const run = async (context: CommandContext): Promise<number> => {
  const { verb, rest } = verbOf(context.argv, ["usage"], findCommand("billing")!.usage)
  return runUsage(context, rest, usageOf("billing", verb))
}
