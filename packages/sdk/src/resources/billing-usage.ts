import type { Billing } from "@core/contracts"
import { BillingRouteRefs } from "@core/contracts/routes"
import { type CallOptions, type CallResult, type PageItem, routeCaller } from "../call.js"
import type { Transport } from "../transport.js"

/** Per-call options of the usage methods. */
export type UsageCallOptions = Pick<CallOptions, "signal" | "headers">

const Routes: typeof BillingRouteRefs = BillingRouteRefs

/** The query of `history` and `historyAll`: `cursor`, `limit` (1 to 100, default 25), `tenantId`, and `platformId` (operators). */
export interface UsageHistoryQuery {
  readonly cursor?: string
  readonly limit?: number
  readonly tenantId?: string
  readonly platformId?: string
}

/** The query of `entities` and `entitiesAll`: `cursor`, `limit`, and `platformId` (operators). */
export interface UsageEntitiesQuery {
  readonly cursor?: string
  readonly limit?: number
  readonly platformId?: string
}

/** The query of `daily`: the dates `from` and `to` (`YYYY-MM-DD`, at most 366 days), and `tenantId`. */
export interface UsageDailyQuery {
  readonly from: string
  readonly to: string
  readonly tenantId?: string
}

/**
 * Usage metering (`client.billing.usage`, `/api/v1/billing/...`), one method per route of
 * `Billing.UsageRoutes` (named in each comment).
 */
export interface BillingUsageClient {
  /** `getUsageCurrent`: the current period's usage and allowances (per tenant with `tenantId`). */
  readonly current: (platformId: string, query?: { readonly tenantId?: string }, options?: UsageCallOptions) => Promise<CallResult<typeof Routes.getUsageCurrent>>
  /** `listUsageHistory`: one page of daily snapshots of the caller's platform, newest first. */
  readonly history: (query?: UsageHistoryQuery, options?: UsageCallOptions) => Promise<CallResult<typeof Routes.listUsageHistory>>
  /** Every daily snapshot, page after page (`for await`). */
  readonly historyAll: (query?: Omit<UsageHistoryQuery, "cursor">, options?: UsageCallOptions) => AsyncGenerator<PageItem<typeof Routes.listUsageHistory>, void, undefined>
  /** `listUsageEntities`: one page of the tenant ids with usage. */
  readonly entities: (query?: UsageEntitiesQuery, options?: UsageCallOptions) => Promise<CallResult<typeof Routes.listUsageEntities>>
  /** Every tenant id with usage (`for await`). */
  readonly entitiesAll: (query?: Omit<UsageEntitiesQuery, "cursor">, options?: UsageCallOptions) => AsyncGenerator<PageItem<typeof Routes.listUsageEntities>, void, undefined>
  /** `getUsageDaily`: the usage per day from `from` to `to`, every day present. */
  readonly daily: (platformId: string, query: UsageDailyQuery, options?: UsageCallOptions) => Promise<CallResult<typeof Routes.getUsageDaily>>
  /** `listUsageAlerts`: the 80 % and 100 % alerts, newest first. */
  readonly alerts: (platformId: string, options?: UsageCallOptions) => Promise<CallResult<typeof Routes.listUsageAlerts>>
  /** `getUsageSummary`: the current period's usage per stack. */
  readonly summary: (platformId: string, options?: UsageCallOptions) => Promise<CallResult<typeof Routes.getUsageSummary>>
  /** `getStackUsage`: one stack's current-period usage, by day. */
  readonly stack: (platformId: string, stackId: string, options?: UsageCallOptions) => Promise<CallResult<typeof Routes.getStackUsage>>
  /** `ingestUsageEvents` (the static key): a batch of 1 to 1,000 events, idempotent by event id. */
  readonly ingest: (events: ReadonlyArray<Billing.UsageEvent>, options?: UsageCallOptions) => Promise<CallResult<typeof Routes.ingestUsageEvents>>
}

/** `client.billing.usage` on `transport`, under `basePath` (the gateway's `/api/v1/billing` by default). */
export const billingUsage = (transport: Transport, basePath?: string): BillingUsageClient => {
  const { call, pages } = routeCaller(transport, { basePath })
  return {
    current: (platformId, query = {}, options) => call(Routes.getUsageCurrent, { query: { platformId, ...query } }, options),
    history: (query = {}, options) => call(Routes.listUsageHistory, { query }, options),
    historyAll: (query = {}, options) => pages(Routes.listUsageHistory, { query }, options),
    entities: (query = {}, options) => call(Routes.listUsageEntities, { query }, options),
    entitiesAll: (query = {}, options) => pages(Routes.listUsageEntities, { query }, options),
    daily: (platformId, query, options) => call(Routes.getUsageDaily, { query: { platformId, ...query } }, options),
    alerts: (platformId, options) => call(Routes.listUsageAlerts, { query: { platformId } }, options),
    summary: (platformId, options) => call(Routes.getUsageSummary, { query: { platformId } }, options),
    stack: (platformId, stackId, options) => call(Routes.getStackUsage, { params: { platformId, stackId } }, options),
    ingest: (events, options) => call(Routes.ingestUsageEvents, { body: { events: [...events] } }, options)
  }
}
