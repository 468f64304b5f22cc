import type { Billing } from "@core/contracts"
import { BillingRouteRefs } from "@core/contracts/routes"
import { type CallOptions, type CallResult, type PageItem, routeCaller } from "../call.js"
import { billingUsage, type BillingUsageClient } from "./billing-usage.js"
import type { Transport } from "../transport.js"

/** Per-call options of the billing methods. */
export type BillingCallOptions = Pick<CallOptions, "signal" | "headers">

const Routes: typeof BillingRouteRefs = BillingRouteRefs

/**
 * Billing through the gateway (`client.billing`, `/api/v1/billing/...`): plans, the platform's
 * subscription, invoices, payment methods, the upgrade, the provider's objects and the operator
 * tools — one method per route of `Billing.BillingRoutes` (named in each comment). Money is
 * integer minor units.
 */
export interface BillingClient {
  /** `listPlans`: the plans with prices and allowances. */
  readonly plans: (options?: BillingCallOptions) => Promise<CallResult<typeof Routes.listPlans>>
  readonly subscription: {
    /** `getSubscription`: a platform's subscription. */
    readonly get: (platformId: string, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.getSubscription>>
    /** `cancelSubscription`: the caller's platform's, at the end of the period. */
    readonly cancel: (options?: BillingCallOptions) => Promise<CallResult<typeof Routes.cancelSubscription>>
    /** `changeTier`: now, the proration charged (or credited) at once. */
    readonly changeTier: (tier: Billing.PaidTier, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.changeTier>>
    /** `prorationPreview`: what `changeTier(tier)` would charge today, to the cent. */
    readonly prorationPreview: (tier: Billing.PaidTier, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.prorationPreview>>
  }
  /** `upgrade`: a free platform to a paid plan; `idempotencyKey` (a UUID) makes a retry answer the first result. */
  readonly upgrade: (input: Billing.UpgradeRequest, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.upgrade>>
  readonly invoices: {
    /** `listInvoices`: one page, newest first. */
    readonly list: (platformId: string, query?: { readonly cursor?: string; readonly limit?: number }, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.listInvoices>>
    /** Every invoice, page after page (`for await`). */
    readonly all: (platformId: string, query?: { readonly limit?: number }, options?: BillingCallOptions) => AsyncGenerator<PageItem<typeof Routes.listInvoices>, void, undefined>
    /** `getInvoice`: one invoice with its lines (of `platformId`, else the caller's platform). */
    readonly get: (id: string, platformId?: string, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.getInvoice>>
  }
  /** `listPaymentMethods`: the caller's platform's cards. */
  readonly paymentMethods: (options?: BillingCallOptions) => Promise<CallResult<typeof Routes.listPaymentMethods>>
  /** `createSetupIntent`. */
  readonly setupIntent: (options?: BillingCallOptions) => Promise<CallResult<typeof Routes.createSetupIntent>>
  /** `createPortalSession`: open the answer's `url` in a browser. */
  readonly portal: (returnUrl: string, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.createPortalSession>>
  readonly customers: {
    readonly create: (body: Billing.CreateCustomerBody, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.createCustomer>>
    readonly get: (id: string, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.getCustomer>>
    readonly update: (id: string, body: Billing.UpdateCustomerBody, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.updateCustomer>>
    readonly subscriptions: (id: string, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.listCustomerSubscriptions>>
    readonly paymentMethods: (id: string, type?: string, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.listCustomerPaymentMethods>>
    readonly defaultPaymentMethod: (id: string, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.getDefaultPaymentMethod>>
  }
  readonly subscriptions: {
    readonly create: (body: Billing.CreateProviderSubscriptionBody, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.createProviderSubscription>>
    readonly get: (id: string, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.getProviderSubscription>>
    readonly update: (id: string, body: Billing.UpdateProviderSubscriptionBody, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.updateProviderSubscription>>
    readonly cancel: (id: string, atPeriodEnd?: boolean, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.cancelProviderSubscription>>
  }
  /** The operator tools (operators and the service key). */
  readonly operator: {
    readonly credit: (body: { readonly customerId: string; readonly amount: number; readonly currency?: string; readonly description: string; readonly reason?: string }, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.createCredit>>
    readonly generateInvoice: (body: { readonly customerId: string; readonly description?: string; readonly reason?: string }, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.generateInvoice>>
    readonly override: (subscriptionId: string, body: { readonly planTier?: Billing.PlanTier; readonly trialEnd?: number; readonly reason?: string }, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.overrideSubscription>>
    readonly trial: (subscriptionId: string, trialDays: number, reason?: string, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.startTrial>>
    readonly overview: (options?: BillingCallOptions) => Promise<CallResult<typeof Routes.overview>>
    readonly log: (query?: { readonly target?: string; readonly cursor?: string; readonly limit?: number }, options?: BillingCallOptions) => Promise<CallResult<typeof Routes.operatorLog>>
    /** `operatorLog`, every page (`for await`). */
    readonly logAll: (query?: { readonly target?: string; readonly limit?: number }, options?: BillingCallOptions) => AsyncGenerator<PageItem<typeof Routes.operatorLog>, void, undefined>
  }
  /** Usage metering: current period, history, tenants, daily series, alerts, per-stack usage, ingestion. */
  readonly usage: BillingUsageClient
}

/** `client.billing` on `transport`, under `basePath` (the gateway's `/api/v1/billing` by default). */
export const billing = (transport: Transport, basePath?: string): BillingClient => {
  const { call, pages } = routeCaller(transport, { basePath })
  return {
    plans: (options) => call(Routes.listPlans, {}, options),
    subscription: {
      get: (platformId, options) => call(Routes.getSubscription, { query: { platformId } }, options),
      cancel: (options) => call(Routes.cancelSubscription, {}, options),
      changeTier: (tier, options) => call(Routes.changeTier, { body: { tier } }, options),
      prorationPreview: (tier, options) => call(Routes.prorationPreview, { query: { tier } }, options)
    },
    upgrade: (input, options) => call(Routes.upgrade, { body: input }, options),
    invoices: {
      list: (platformId, query = {}, options) => call(Routes.listInvoices, { query: { platformId, ...query } }, options),
      all: (platformId, query = {}, options) => pages(Routes.listInvoices, { query: { platformId, ...query } }, options),
      get: (id, platformId, options) => call(Routes.getInvoice, { params: { id }, query: platformId === undefined ? {} : { platformId } }, options)
    },
    paymentMethods: (options) => call(Routes.listPaymentMethods, {}, options),
    setupIntent: (options) => call(Routes.createSetupIntent, {}, options),
    portal: (returnUrl, options) => call(Routes.createPortalSession, { body: { returnUrl } }, options),
    customers: {
      create: (body, options) => call(Routes.createCustomer, { body }, options),
      get: (id, options) => call(Routes.getCustomer, { params: { id } }, options),
      update: (id, body, options) => call(Routes.updateCustomer, { params: { id }, body }, options),
      subscriptions: (id, options) => call(Routes.listCustomerSubscriptions, { params: { id } }, options),
      paymentMethods: (id, type, options) => call(Routes.listCustomerPaymentMethods, { params: { id }, query: type === undefined ? {} : { type } }, options),
      defaultPaymentMethod: (id, options) => call(Routes.getDefaultPaymentMethod, { params: { id } }, options)
    },
    subscriptions: {
      create: (body, options) => call(Routes.createProviderSubscription, { body }, options),
      get: (id, options) => call(Routes.getProviderSubscription, { params: { id } }, options),
      update: (id, body, options) => call(Routes.updateProviderSubscription, { params: { id }, body }, options),
      cancel: (id, atPeriodEnd = false, options) => call(Routes.cancelProviderSubscription, { params: { id }, query: { atPeriodEnd: atPeriodEnd ? "true" : "false" } }, options)
    },
    operator: {
      credit: (body, options) => call(Routes.createCredit, { body }, options),
      generateInvoice: (body, options) => call(Routes.generateInvoice, { body }, options),
      override: (subscriptionId, body, options) => call(Routes.overrideSubscription, { params: { id: subscriptionId }, body }, options),
      trial: (subscriptionId, trialDays, reason, options) =>
        call(Routes.startTrial, { params: { id: subscriptionId }, body: reason === undefined ? { trialDays } : { trialDays, reason } }, options),
      overview: (options) => call(Routes.overview, {}, options),
      log: (query = {}, options) => call(Routes.operatorLog, { query }, options),
      logAll: (query = {}, options) => pages(Routes.operatorLog, { query }, options)
    },
    usage: billingUsage(transport, basePath)
  }
}
