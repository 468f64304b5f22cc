import { randomUUID } from "node:crypto"
import { expectPositionals, limitOf, parseOptions } from "../args.js"
import { ExitCode, usageError } from "../errors.js"
import type { CommandContext } from "../spec.js"
import { withSession } from "../session.js"

const money = (minor: number, currency = "usd") => `${currency === "usd" ? "$" : `${currency.toUpperCase()} `}${(minor / 100).toFixed(2)}`
const count = (n: number) => n.toLocaleString("en-US")
const PAID = ["starter", "growth", "scale"] as const

/** The platform of `--platform`, else the login's. */
const platformOf = (given: string | undefined, platformId: string | null, usage: string): string => {
  const id = given ?? platformId
  if (id === null || id === undefined) throw usageError(`No platform: pass --platform <platform-id> (this login has none). Usage: ${usage}`)
  return id
}

/** `core billing plans [--json]`: the plans, prices and allowances. */
export const runPlans = async ({ ui, env }: CommandContext, argv: ReadonlyArray<string>, usage: string): Promise<number> => {
  const { positionals } = parseOptions(argv, {}, usage)
  expectPositionals(positionals, [], usage)
  return withSession(env, async ({ client }) => {
    const plans = await client.billing.plans()
    ui.result(plans, () =>
      ui.table(plans, [
        { header: "PLAN", value: (plan) => plan.id },
        { header: "PRICE", value: (plan) => `${money(plan.priceMinor, plan.currency)}/${plan.interval}` },
        { header: "REQUESTS", value: (plan) => count(plan.allowances.requests) },
        { header: "RESOURCE-HOURS", value: (plan) => count(plan.allowances.resourceHours) },
        { header: "BUILDS", value: (plan) => count(plan.allowances.builds) }
      ]))
    return ExitCode.ok
  })
}

/** `core billing status [--platform <id>] [--json]`: the subscription. */
export const runStatus = async ({ ui, env }: CommandContext, argv: ReadonlyArray<string>, usage: string): Promise<number> => {
  const { values, positionals } = parseOptions(argv, { platform: { type: "string" } }, usage)
  expectPositionals(positionals, [], usage)
  return withSession(env, async (session) => {
    const platformId = platformOf(values.platform, session.credentials().platformId, usage)
    const subscription = await session.client.billing.subscription.get(platformId)
    ui.result(subscription, () => {
      ui.line(`Platform ${subscription.platformId}: ${subscription.tier} (${money(subscription.priceMinor, subscription.currency)}/month), ${subscription.status}`)
      ui.line(`Period ${subscription.currentPeriodStart.slice(0, 10)} to ${subscription.currentPeriodEnd.slice(0, 10)}${subscription.cancelAtPeriodEnd ? ", cancels at its end" : ""}`)
      if (subscription.trialEnd !== null) ui.line(`Trial until ${subscription.trialEnd.slice(0, 10)}`)
      if (subscription.pastDueSince !== null) ui.line(`Past due since ${subscription.pastDueSince.slice(0, 10)}: update the card with the portal`)
    })
    return ExitCode.ok
  })
}

/** `core billing invoices [--platform <id>] [--limit <n>] [--cursor <c>] [--json]`: newest first. */
export const runInvoices = async ({ ui, env }: CommandContext, argv: ReadonlyArray<string>, usage: string): Promise<number> => {
  const { values, positionals } = parseOptions(argv, { platform: { type: "string" }, limit: { type: "string" }, cursor: { type: "string" } }, usage)
  expectPositionals(positionals, [], usage)
  const limit = limitOf(values.limit, usage)
  return withSession(env, async (session) => {
    const platformId = platformOf(values.platform, session.credentials().platformId, usage)
    const page = await session.client.billing.invoices.list(platformId, { limit, ...(values.cursor === undefined ? {} : { cursor: values.cursor }) })
    ui.result(page, () => {
      ui.list(
        page.data,
        [
          { header: "ID", value: (invoice) => invoice.id },
          { header: "DATE", value: (invoice) => invoice.createdAt.slice(0, 10) },
          { header: "STATUS", value: (invoice) => invoice.status },
          { header: "TOTAL", value: (invoice) => money(invoice.totalMinor, invoice.currency) },
          { header: "DESCRIPTION", value: (invoice) => invoice.description ?? "" }
        ],
        { empty: "No invoices.", noun: "invoices" }
      )
      if (page.nextCursor !== null) ui.line(`More: --cursor ${page.nextCursor}`)
    })
    return ExitCode.ok
  })
}

/**
 * `core billing upgrade <plan> --payment-method <pm> --email <e> [--idempotency-key <uuid>] [--json]`:
 * a free platform to a paid plan; a key is made when none is given (print it to retry safely).
 */
export const runUpgrade = async ({ ui, env }: CommandContext, argv: ReadonlyArray<string>, usage: string): Promise<number> => {
  const options = { "payment-method": { type: "string" }, email: { type: "string" }, "idempotency-key": { type: "string" } } as const
  const { values, positionals } = parseOptions(argv, options, usage)
  const [plan] = expectPositionals(positionals, ["plan"], usage)
  if (!(PAID as ReadonlyArray<string>).includes(plan)) throw usageError(`<plan> must be one of ${PAID.join(", ")}. Usage: ${usage}`)
  if (values["payment-method"] === undefined) throw usageError(`Missing --payment-method (e.g. pm_card_visa). Usage: ${usage}`)
  if (values.email === undefined) throw usageError(`Missing --email. Usage: ${usage}`)
  const idempotencyKey = values["idempotency-key"] ?? randomUUID()
  return withSession(env, async ({ client }) => {
    const result = await client.billing.upgrade({ planId: plan as (typeof PAID)[number], paymentMethodId: values["payment-method"]!, billingEmail: values.email!, idempotencyKey })
    ui.result(result, () => {
      ui.line(`Upgraded to ${result.subscription.tier}: charged ${money(result.invoice.totalMinor, result.invoice.currency)} (invoice ${result.invoice.id})`)
      ui.line(`Idempotency key: ${idempotencyKey}`)
    })
    return ExitCode.ok
  })
}
