import { z } from "zod"
import { BoundedId } from "../Bounds.js"
import { cursorPage, cursorParam, limitParam } from "../Pagination.js"
import { naming, pathInput } from "../PathRecords.js"
import { defineRoutes } from "../Routes.js"

/**
 * Usage metering (docs/billing.md, "Metering"; decisions 0460–0468):
 * events ingested idempotently by id, rolled up by day, read per period, tenant, stack and day.
 */

/** The meters (billing's `Meter`): requests through the gateway, resource-hours from provisioning, builds from deploys. */
export const UsageMeter = z.enum(["requests", "resource_hours", "builds"])
export type UsageMeter = z.infer<typeof UsageMeter>

/** The most events one ingestion call carries. */
export const USAGE_BATCH_MAX = 1000
/** The largest quantity one event may carry. */
export const USAGE_QUANTITY_MAX = 1_000_000_000
/** The longest range `/usage/daily` answers, in days. */
export const USAGE_DAILY_MAX_DAYS = 366

/** A calendar day, `YYYY-MM-DD` (UTC). */
export const UsageDay = z.iso.date()

/** One usage event: its id makes it idempotent (sent twice, counted once). */
export const UsageEvent = z.object({
  id: BoundedId,
  platformId: BoundedId,
  tenantId: BoundedId.optional(),
  stackId: BoundedId.optional(),
  meter: UsageMeter,
  quantity: z.number().int().min(1).max(USAGE_QUANTITY_MAX),
  occurredAt: z.iso.datetime({ offset: true })
})
export type UsageEvent = z.input<typeof UsageEvent>

/** `POST /internal/usage/events`: a batch of 1 to 1,000 events. */
export const UsageEventBatch = z.object({ events: z.array(UsageEvent).min(1).max(USAGE_BATCH_MAX) })
export type UsageEventBatch = z.input<typeof UsageEventBatch>

/** What a batch did: events newly counted, and those already seen (accepted, not counted again). */
export const UsageIngested = z.object({ accepted: z.number().int().min(0), duplicates: z.number().int().min(0) })
export type UsageIngested = z.infer<typeof UsageIngested>

/** A quantity per meter, keyed as a plan's allowances are. */
export const UsageTotals = z.object({ requests: z.number().int(), resourceHours: z.number().int(), builds: z.number().int() })
export type UsageTotals = z.infer<typeof UsageTotals>

/** The current billing period of a platform's usage, with its plan's allowances (`null`: unlimited). */
export const UsageCurrent = z.object({
  platformId: z.string(),
  tenantId: z.string().nullable(),
  periodStart: z.string(),
  periodEnd: z.string(),
  usage: UsageTotals,
  allowances: z.object({ requests: z.number().int().nullable(), resourceHours: z.number().int().nullable(), builds: z.number().int().nullable() })
})
export type UsageCurrent = z.infer<typeof UsageCurrent>

/** One day of usage (a daily rollup): the platform's, or one tenant's. */
export const UsageSnapshot = z.object({ date: z.string(), platformId: z.string(), tenantId: z.string().nullable() }).extend(UsageTotals.shape)
export type UsageSnapshot = z.infer<typeof UsageSnapshot>

/** A tenant id with usage on the platform, and the last day it had some. */
export const UsageEntity = z.object({ tenantId: z.string(), lastUsedOn: z.string() })
export type UsageEntity = z.infer<typeof UsageEntity>

/** A day of a daily series. */
export const UsageDailyPoint = z.object({ date: z.string() }).extend(UsageTotals.shape)

/** `GET /usage/daily`: every day from `from` to `to`, days without usage at zero. */
export const UsageDaily = z.object({
  platformId: z.string(),
  tenantId: z.string().nullable(),
  from: z.string(),
  to: z.string(),
  series: z.array(UsageDailyPoint)
})
export type UsageDaily = z.infer<typeof UsageDaily>

/** An alert: a meter reached 80 % or 100 % of its allowance; raised once per period and kept. */
export const UsageAlert = z.object({
  id: z.string(),
  platformId: z.string(),
  meter: UsageMeter,
  threshold: z.union([z.literal(80), z.literal(100)]),
  allowance: z.number().int(),
  used: z.number().int(),
  periodStart: z.string(),
  periodEnd: z.string(),
  raisedAt: z.string()
})
export type UsageAlert = z.infer<typeof UsageAlert>

/** `GET /usage/alerts`: a platform's alerts, newest first. */
export const UsageAlertList = z.object({ data: z.array(UsageAlert) })

/** One stack's usage in the current period. */
export const StackUsageLine = z.object({ stackId: z.string() }).extend(UsageTotals.shape)

/** `GET /usage-summary`: the current period's usage per stack. */
export const UsageSummary = z.object({ platformId: z.string(), periodStart: z.string(), periodEnd: z.string(), stacks: z.array(StackUsageLine) })
export type UsageSummary = z.infer<typeof UsageSummary>

/** `GET /platforms/{platformId}/stacks/{stackId}/usage`: one stack's usage in the current period, by day. */
export const StackUsage = z.object({
  platformId: z.string(),
  stackId: z.string(),
  periodStart: z.string(),
  periodEnd: z.string(),
  usage: UsageTotals,
  daily: z.array(UsageDailyPoint)
})
export type StackUsage = z.infer<typeof StackUsage>

/** `?platformId=&tenantId=`. */
export const UsageCurrentQuery = z.object({ platformId: BoundedId, tenantId: BoundedId.optional() })
/** `?limit=&cursor=&tenantId=` (and, for operators and the service key, `platformId`: decision 0463). */
export const UsageHistoryQuery = z.object({ limit: limitParam(), cursor: cursorParam, tenantId: BoundedId.optional(), platformId: BoundedId.optional() })
/** `?limit=&cursor=` (and `platformId`, as for the history). */
export const UsageEntitiesQuery = z.object({ limit: limitParam(), cursor: cursorParam, platformId: BoundedId.optional() })
/** `?platformId=&tenantId=&from=&to=`: dates, `from` ≤ `to`, at most 366 days. */
export const UsageDailyQuery = z.object({ platformId: BoundedId, tenantId: BoundedId.optional(), from: UsageDay, to: UsageDay })
/** `?platformId=`. */
export const UsagePlatformQuery = z.object({ platformId: BoundedId })
/** `/platforms/{platformId}/stacks/{stackId}/usage`. */
/** The path of a stack's usage: `stackId` filters usage (a stack without any answers zeros), so a refused one stays a 400. */
export const StackUsageParams = z.object({ platformId: naming(BoundedId, "Platform not found"), stackId: pathInput(BoundedId) })

const tags = ["billing: usage"]
const reads = { 400: null, 401: null, 403: null, 404: null } as const

/** The usage routes, served at `/api/billing<path>` and `<path>`; through the gateway at `/api/v1/billing<path>`. */
export const UsageRoutes = defineRoutes({
  getUsageCurrent: {
    method: "GET",
    path: "/api/billing/usage/current",
    summary: "A platform's usage in its current billing period, with its plan's allowances (another tenant's platform: 404)",
    description: "The usage of `platformId` (or of one tenant with `tenantId`) in its current billing period, per meter, beside its plan's allowances. Needs `billing:read`; another tenant's platform answers 404.",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { query: UsageCurrentQuery },
    responses: { 200: UsageCurrent, ...reads },
    tags
  },
  listUsageHistory: {
    method: "GET",
    path: "/api/billing/usage/history",
    summary: "The caller's platform's daily usage, newest day first, cursor-paged",
    description: "The daily usage of the caller's platform per meter, newest day first, cursor-paged.",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { query: UsageHistoryQuery },
    responses: { 200: cursorPage(UsageSnapshot), ...reads },
    tags
  },
  listUsageEntities: {
    method: "GET",
    path: "/api/billing/usage/entities",
    summary: "The distinct tenant ids with usage on the caller's platform, cursor-paged",
    description: "The distinct tenant (entity) ids that have usage on the caller's platform, cursor-paged: who to ask per-tenant usage for.",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { query: UsageEntitiesQuery },
    responses: { 200: cursorPage(UsageEntity), ...reads },
    tags
  },
  getUsageDaily: {
    method: "GET",
    path: "/api/billing/usage/daily",
    summary: "A platform's (or a tenant's) usage per day from `from` to `to`",
    description: "The usage per day and meter of a platform, or of one tenant, between `from` and `to` (inclusive dates), for charts.",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { query: UsageDailyQuery },
    responses: { 200: UsageDaily, ...reads },
    tags
  },
  listUsageAlerts: {
    method: "GET",
    path: "/api/billing/usage/alerts",
    summary: "The alerts raised at 80 % and 100 % of an allowance, newest first",
    description: "The alerts raised when a meter passed 80 % and 100 % of its allowance in a period, newest first, with the meter, the allowance and what was used.",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { query: UsagePlatformQuery },
    responses: { 200: UsageAlertList, ...reads },
    tags
  },
  getUsageSummary: {
    method: "GET",
    path: "/api/billing/usage-summary",
    summary: "The current period's usage per stack",
    description: "The current period's usage of the caller's platform per stack and meter.",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { query: UsagePlatformQuery },
    responses: { 200: UsageSummary, ...reads },
    tags
  },
  getStackUsage: {
    method: "GET",
    path: "/api/billing/platforms/{platformId}/stacks/{stackId}/usage",
    summary: "One stack's usage in the current period, by day",
    description: "One stack's usage in the current period, in total and by day. Another tenant's platform or stack answers 404.",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { params: StackUsageParams },
    responses: { 200: StackUsage, ...reads },
    tags
  },
  ingestUsageEvents: {
    method: "POST",
    path: "/internal/usage/events",
    summary: "Ingest a batch of usage events (the service key): idempotent by event id",
    description: "Core's own services report metered usage here in batches (platform, tenant, stack, meter, quantity, time); each event id counts once, so a retried batch is safe. The static service key (or a service token) only.",
    auth: "service",
    request: { body: UsageEventBatch },
    responses: { 200: UsageIngested, 400: null, 401: null },
    tags: ["billing: internal"]
  }
})
