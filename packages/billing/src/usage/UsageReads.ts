import type { Billing } from "@core/contracts"
import { type Caller, Cursor, Policy } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { z } from "zod"
import { UsageAccounts, type UsagePeriod } from "./UsageAccounts.js"
import { day } from "./UsageIngest.js"
import { invalidUsageQuery, platformNotFound } from "../Errors.js"

const DAY_MS = 86_400_000
const MAX_DAYS = 366

/** The per-meter sums of a group of rollup rows, in one row. */
const TOTALS = `coalesce(sum(quantity) FILTER (WHERE meter = 'requests'), 0)::text AS requests,
  coalesce(sum(quantity) FILTER (WHERE meter = 'resource_hours'), 0)::text AS "resourceHours",
  coalesce(sum(quantity) FILTER (WHERE meter = 'builds'), 0)::text AS builds`

type TotalsRow = { readonly requests: string; readonly resourceHours: string; readonly builds: string }
const totalsOf = (row: TotalsRow | undefined): Billing.UsageTotals => ({
  requests: Number(row?.requests ?? 0),
  resourceHours: Number(row?.resourceHours ?? 0),
  builds: Number(row?.builds ?? 0)
})

const DateCursor = z.object({ date: Cursor.Day })
const TenantCursor = z.object({ tenantId: z.string().min(1).max(128) })


/**
 * The usage reads (decisions 0461–0466): a platform's readers (`billing:read` in its organization),
 * operators and the service key; another tenant's platform answers 404. Routes without
 * `platformId` act on the caller's own platform. Every read sums the daily rollups.
 */
export class UsageReads extends Effect.Service<UsageReads>()("@core/billing/UsageReads", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const accounts = yield* UsageAccounts

    /** Passes when the caller may read the platform's usage; 404 otherwise (403 for a member lacking `billing:read`). */
    const readable = (caller: Caller, platformId: string) =>
      Effect.gen(function*() {
        const owner = yield* accounts.owner(platformId)
        if (Option.isNone(owner)) return yield* platformNotFound
        if (owner.value === null) {
          if (!(yield* Policy.isPrivileged(caller))) return yield* platformNotFound
          return
        }
        yield* Policy.requirePermission(caller, owner.value, "billing:read", platformNotFound)
      })

    /** The platform a route without (or with an optional) `platformId` acts on: the named one, else the caller's own. */
    const platformOf = (caller: Caller, platformId: string | undefined) =>
      Effect.gen(function*() {
        if (platformId !== undefined) {
          yield* readable(caller, platformId)
          return platformId
        }
        const own = caller.kind === "apikey"
          ? Option.some(caller.platformId)
          : caller.kind === "user" && caller.platformId !== undefined && caller.platformId !== null
          ? Option.some(caller.platformId)
          : caller.kind === "user" && caller.organizationId !== null
          ? yield* accounts.platformOf(caller.organizationId)
          : Option.none()
        if (Option.isNone(own)) {
          return yield* invalidUsageQuery("platformId", "A caller without a platform of its own names one with platformId")
        }
        yield* readable(caller, own.value)
        return own.value
      })

    const currentPeriod = (platformId: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => accounts.period(platformId, new Date(now)))

    const periodTotals = (platformId: string, period: UsagePeriod, tenantId: string | undefined) =>
      sql<TotalsRow>`SELECT ${sql.literal(TOTALS)} FROM billing.usage_daily WHERE platform_id = ${platformId}
        AND day >= ${day(period.start)}::date AND day < ${day(period.end)}::date
        ${tenantId === undefined ? sql`` : sql`AND tenant_id = ${tenantId}`}`.pipe(Effect.map((rows) => totalsOf(rows[0])), Effect.orDie)

    const current = Effect.fn("UsageReads.current")(function*(caller: Caller, platformId: string, tenantId?: string) {
      yield* readable(caller, platformId)
      const period = yield* currentPeriod(platformId)
      return {
        platformId,
        tenantId: tenantId ?? null,
        periodStart: period.start.toISOString(),
        periodEnd: period.end.toISOString(),
        usage: yield* periodTotals(platformId, period, tenantId),
        allowances: { requests: period.allowances.requests, resourceHours: period.allowances.resource_hours, builds: period.allowances.builds }
      } satisfies Billing.UsageCurrent
    })

    const history = Effect.fn("UsageReads.history")(function*(caller: Caller, query: { limit: number; cursor?: string | undefined; tenantId?: string | undefined; platformId?: string | undefined }) {
      const platformId = yield* platformOf(caller, query.platformId)
      const after = yield* Cursor.decodeOptional(DateCursor, query.cursor)
      const rows = yield* sql<TotalsRow & { date: string }>`SELECT to_char(day, 'YYYY-MM-DD') AS date, ${sql.literal(TOTALS)}
        FROM billing.usage_daily WHERE platform_id = ${platformId}
        ${query.tenantId === undefined ? sql`` : sql`AND tenant_id = ${query.tenantId}`}
        ${after === undefined ? sql`` : sql`AND day < ${after.date}::date`}
        GROUP BY day ORDER BY day DESC LIMIT ${query.limit + 1}`.pipe(Effect.orDie)
      const page = Cursor.page(rows, query.limit, (row) => ({ date: row.date }))
      return { ...page, data: page.data.map((row) => ({ date: row.date, platformId, tenantId: query.tenantId ?? null, ...totalsOf(row) })) }
    })

    const entities = Effect.fn("UsageReads.entities")(function*(caller: Caller, query: { limit: number; cursor?: string | undefined; platformId?: string | undefined }) {
      const platformId = yield* platformOf(caller, query.platformId)
      const after = yield* Cursor.decodeOptional(TenantCursor, query.cursor)
      const rows = yield* sql<{ tenantId: string; lastUsedOn: string }>`SELECT tenant_id AS "tenantId", to_char(max(day), 'YYYY-MM-DD') AS "lastUsedOn"
        FROM billing.usage_daily WHERE platform_id = ${platformId} AND tenant_id <> ''
        ${after === undefined ? sql`` : sql`AND tenant_id > ${after.tenantId}`}
        GROUP BY tenant_id ORDER BY tenant_id LIMIT ${query.limit + 1}`.pipe(Effect.orDie)
      return Cursor.page(rows, query.limit, (row) => ({ tenantId: row.tenantId }))
    })

    /** Per-day totals between two days (inclusive), every day present. */
    const series = (platformId: string, from: string, to: string, filter: { tenantId?: string | undefined; stackId?: string | undefined }) =>
      Effect.gen(function*() {
        const rows = yield* sql<TotalsRow & { date: string }>`SELECT to_char(day, 'YYYY-MM-DD') AS date, ${sql.literal(TOTALS)}
          FROM billing.usage_daily WHERE platform_id = ${platformId} AND day >= ${from}::date AND day <= ${to}::date
          ${filter.tenantId === undefined ? sql`` : sql`AND tenant_id = ${filter.tenantId}`}
          ${filter.stackId === undefined ? sql`` : sql`AND stack_id = ${filter.stackId}`}
          GROUP BY day`.pipe(Effect.orDie)
        const byDate = new Map(rows.map((row) => [row.date, row]))
        const points: Array<{ date: string } & Billing.UsageTotals> = []
        for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += DAY_MS) {
          const date = day(new Date(at))
          points.push({ date, ...totalsOf(byDate.get(date)) })
        }
        return points
      })

    const daily = Effect.fn("UsageReads.daily")(function*(caller: Caller, query: { platformId: string; tenantId?: string | undefined; from: string; to: string }) {
      if (query.from > query.to) return yield* invalidUsageQuery("to", "to must not be before from")
      const days = (Date.parse(`${query.to}T00:00:00Z`) - Date.parse(`${query.from}T00:00:00Z`)) / DAY_MS + 1
      if (days > MAX_DAYS) return yield* invalidUsageQuery("to", `At most ${MAX_DAYS} days from from to to`)
      yield* readable(caller, query.platformId)
      return {
        platformId: query.platformId,
        tenantId: query.tenantId ?? null,
        from: query.from,
        to: query.to,
        series: yield* series(query.platformId, query.from, query.to, { tenantId: query.tenantId })
      } satisfies Billing.UsageDaily
    })

    const alerts = Effect.fn("UsageReads.alerts")(function*(caller: Caller, platformId: string) {
      yield* readable(caller, platformId)
      const rows = yield* sql<Record<string, unknown>>`SELECT id, platform_id, meter, threshold, allowance::text, used::text, period_start, period_end, raised_at
        FROM billing.usage_alerts WHERE platform_id = ${platformId} ORDER BY raised_at DESC, threshold DESC, meter`.pipe(Effect.orDie)
      return {
        data: rows.map((row): Billing.UsageAlert => ({
          id: row.id as string,
          platformId: row.platform_id as string,
          meter: row.meter as Billing.UsageMeter,
          threshold: Number(row.threshold) as 80 | 100,
          allowance: Number(row.allowance),
          used: Number(row.used),
          periodStart: new Date(row.period_start as string).toISOString(),
          periodEnd: new Date(row.period_end as string).toISOString(),
          raisedAt: new Date(row.raised_at as string).toISOString()
        }))
      }
    })

    const summary = Effect.fn("UsageReads.summary")(function*(caller: Caller, platformId: string) {
      yield* readable(caller, platformId)
      const period = yield* currentPeriod(platformId)
      const rows = yield* sql<TotalsRow & { stackId: string }>`SELECT stack_id AS "stackId", ${sql.literal(TOTALS)} FROM billing.usage_daily
        WHERE platform_id = ${platformId} AND stack_id <> '' AND day >= ${day(period.start)}::date AND day < ${day(period.end)}::date
        GROUP BY stack_id ORDER BY stack_id`.pipe(Effect.orDie)
      return {
        platformId,
        periodStart: period.start.toISOString(),
        periodEnd: period.end.toISOString(),
        stacks: rows.map((row) => ({ stackId: row.stackId, ...totalsOf(row) }))
      } satisfies Billing.UsageSummary
    })

    const stack = Effect.fn("UsageReads.stack")(function*(caller: Caller, platformId: string, stackId: string) {
      yield* readable(caller, platformId)
      const period = yield* currentPeriod(platformId)
      const last = new Date(Math.min(period.end.getTime() - DAY_MS, yield* Clock.currentTimeMillis))
      const points = last < period.start ? [] : yield* series(platformId, day(period.start), day(last), { stackId })
      const usage = points.reduce((sum, point) => ({
        requests: sum.requests + point.requests,
        resourceHours: sum.resourceHours + point.resourceHours,
        builds: sum.builds + point.builds
      }), { requests: 0, resourceHours: 0, builds: 0 })
      return { platformId, stackId, periodStart: period.start.toISOString(), periodEnd: period.end.toISOString(), usage, daily: points } satisfies Billing.StackUsage
    })

    return { current, history, entities, daily, alerts, summary, stack } as const
  })
}) {}
