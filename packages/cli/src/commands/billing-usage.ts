import type { Billing } from "@core/contracts"
import { BillingRouteRefs } from "@core/contracts/routes"
import { expectPositionals, parseOptions } from "../args.js"
import { ExitCode, usageError } from "../errors.js"
import type { CommandContext } from "../spec.js"
import { withSession } from "../session.js"

const METERS = ["requests", "resource_hours", "builds"] as const
type Meter = (typeof METERS)[number]
const KEY: Readonly<Record<Meter, keyof Billing.UsageTotals>> = { requests: "requests", resource_hours: "resourceHours", builds: "builds" }
const LABEL: Readonly<Record<Meter, string>> = { requests: "Requests", resource_hours: "Resource-hours", builds: "Builds" }
const DAY_MS = 86_400_000
const EIGHTHS = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]

const number = (n: number) => n.toLocaleString("en-US")

/** A horizontal bar of `value / max` of `width` cells, in eighths of a cell (`#` on a dumb terminal). */
export const bar = (value: number, max: number, width: number, plain = false): string => {
  if (max <= 0 || value <= 0) return ""
  const eighths = Math.max(1, Math.round((value / max) * width * 8))
  if (plain) return "#".repeat(Math.max(1, Math.round(eighths / 8)))
  return "█".repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8]
}

/**
 * The daily chart of one meter: a line per day, `YYYY-MM-DD │████▌ 1,234`, bars scaled to the
 * busiest day and to the space the terminal leaves.
 */
export const chart = (series: ReadonlyArray<{ readonly date: string } & Billing.UsageTotals>, meter: Meter, columns = 80, plain = false): Array<string> => {
  const values = series.map((point) => point[KEY[meter]])
  const max = Math.max(0, ...values)
  const labelWidth = Math.max(...values.map((value) => number(value).length), 1)
  const width = Math.max(10, Math.min(60, columns - 10 - 3 - labelWidth - 2))
  return series.map((point, i) => {
    const value = values[i]!
    const drawn = bar(value, max, width, plain)
    return `${point.date} │${drawn}${" ".repeat(Math.max(0, width - [...drawn].length))} ${number(value).padStart(labelWidth)}`
  })
}

const day = (at: number) => new Date(at).toISOString().slice(0, 10)

/**
 * `core billing usage [--platform <id>] [--days <n> | --from <date> --to <date>] [--meter <m>]
 * [--tenant <id>] [--json]`: the current period against the allowances, then a daily chart of one
 * meter (requests by default) drawn in the terminal. `--json` prints `{ current, daily }`.
 */
export const runUsage = async ({ ui, env }: CommandContext, argv: ReadonlyArray<string>, usage: string): Promise<number> => {
  const options = { platform: { type: "string" }, days: { type: "string" }, from: { type: "string" }, to: { type: "string" }, meter: { type: "string" }, tenant: { type: "string" } } as const
  const { values, positionals } = parseOptions(argv, options, usage)
  expectPositionals(positionals, [], usage)
  const meter = (values.meter ?? "requests") as Meter
  if (!METERS.includes(meter)) throw usageError(`--meter must be one of ${METERS.join(", ")}. Usage: ${usage}`)
  const days = values.days === undefined ? 30 : Number(values.days)
  if (!Number.isInteger(days) || days < 1 || days > 366) throw usageError(`--days must be a whole number from 1 to 366. Usage: ${usage}`)
  const to = values.to ?? day(Date.now())
  const from = values.from ?? day(Date.parse(`${to}T00:00:00Z`) - (days - 1) * DAY_MS)
  if (!/^\d{4}-\d{2}-\d{2}$/.test(from) || !/^\d{4}-\d{2}-\d{2}$/.test(to)) throw usageError(`--from and --to are dates (YYYY-MM-DD). Usage: ${usage}`)
  return withSession(env, async (session) => {
    const platformId = values.platform ?? session.credentials().platformId
    if (platformId === null) throw usageError(`No platform: pass --platform <platform-id> (this login has none). Usage: ${usage}`)
    const tenant = values.tenant === undefined ? {} : { tenantId: values.tenant }
    const [current, daily] = await Promise.all([
      session.client.call(BillingRouteRefs.getUsageCurrent, { query: { platformId, ...tenant } }),
      session.client.call(BillingRouteRefs.getUsageDaily, { query: { platformId, from, to, ...tenant } })
    ])
    ui.result({ current, daily }, () => {
      ui.line(`Usage of ${platformId}${current.tenantId === null ? "" : ` (tenant ${current.tenantId})`}, period ${current.periodStart.slice(0, 10)} to ${current.periodEnd.slice(0, 10)}`)
      ui.table(METERS.map((m) => m), [
        { header: "METER", value: (m) => LABEL[m] },
        { header: "USED", value: (m) => number(current.usage[KEY[m]]) },
        { header: "ALLOWANCE", value: (m) => (current.allowances[KEY[m]] === null ? "unlimited" : number(current.allowances[KEY[m]]!)) },
        {
          header: "%",
          value: (m) => {
            const allowance = current.allowances[KEY[m]]
            return allowance === null || allowance === 0 ? "-" : `${Math.round((current.usage[KEY[m]] / allowance) * 100)}%`
          }
        }
      ])
      ui.line()
      ui.line(`${LABEL[meter]} per day, ${daily.from} to ${daily.to}`)
      const plain = env.TERM === "dumb"
      for (const line of chart(daily.series, meter, process.stdout.columns ?? 80, plain)) ui.line(line)
    })
    return ExitCode.ok
  })
}
