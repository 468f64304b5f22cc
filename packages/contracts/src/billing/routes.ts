import { defineRoutes } from "../Routes.js"
import {
  EnsurePlatformSubscriptionRequest,
  ChangeTierRequest,
  InvoiceList,
  InvoiceListQuery,
  InvoiceQuery,
  InvoiceRecord,
  InvoiceParams,
  PaymentMethodList,
  PlanRecord,
  PlatformParams,
  PlatformQuery,
  PortalRequest,
  PortalSession,
  ProrationPreview,
  ProrationQuery,
  SetupIntentRecord,
  SubscriptionRecord,
  TierChange,
  UpgradeRequest,
  UpgradeResult
} from "./schemas.js"
import { z } from "zod"
import { OperatorRoutes } from "./operator.js"
import { PortalRoutes, ProviderRoutes, WebhookRoutes } from "./provider.js"
import { UsageRoutes } from "./usage.js"

const subscriptions = ["billing: subscriptions"]
const invoices = ["billing: invoices"]
const payments = ["billing: payments"]

/**
 * The billing routes of seed 001 served at both `/api/billing<path>` and `<path>` (the service's
 * base is `/api/billing`), the upgrade (only at `/api/billing/upgrade`) and `GET /plans`. Through
 * the gateway: `/api/v1/billing/<path>`. Routes that take `platformId` check that the caller may
 * read that platform (another tenant's: 404); the others act on the caller's own platform.
 * Metering adds its routes from `usage.ts`; the provider's root-path objects are in `provider.ts`,
 * the operator tools in `operator.ts`.
 */
export const BillingCoreRoutes = defineRoutes({
  listPlans: {
    method: "GET",
    path: "/plans",
    summary: "The plans with their prices (integer minor units) and usage allowances",
    auth: "public",
    suspension: "exempt",
    responses: { 200: z.array(PlanRecord) },
    tags: subscriptions
  },
  getSubscription: {
    method: "GET",
    path: "/api/billing/subscription",
    summary: "A platform's subscription (another tenant's: 404)",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { query: PlatformQuery },
    responses: { 200: SubscriptionRecord, 400: null, 401: null, 403: null, 404: null },
    tags: subscriptions
  },
  createSubscription: {
    method: "POST",
    path: "/api/billing/subscription",
    summary: "Reserved for future use: answers 501 NOT_IMPLEMENTED",
    auth: "caller",
    responses: { 401: null, 501: null },
    tags: subscriptions
  },
  cancelSubscription: {
    method: "POST",
    path: "/api/billing/subscription/cancel",
    summary: "Cancel the caller's platform's subscription at the end of its period",
    auth: "caller",
    permission: "billing:manage",
    tenant: "platform",
    responses: { 200: SubscriptionRecord, 401: null, 403: null, 404: null, 409: null },
    tags: subscriptions
  },
  changeTier: {
    method: "POST",
    path: "/api/billing/subscription/change-tier",
    summary: "Change the caller's platform's tier now; the proration is charged (or credited) at once",
    auth: "caller",
    permission: "billing:manage",
    tenant: "platform",
    request: { body: ChangeTierRequest },
    responses: { 200: TierChange, 400: null, 401: null, 402: null, 403: null, 404: null, 409: null },
    tags: subscriptions
  },
  prorationPreview: {
    method: "GET",
    path: "/api/billing/subscription/proration-preview",
    summary: "What a change to `tier` would charge now, to the cent",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { query: ProrationQuery },
    responses: { 200: ProrationPreview, 400: null, 401: null, 403: null, 404: null, 409: null },
    tags: subscriptions
  },
  listInvoices: {
    method: "GET",
    path: "/api/billing/invoices",
    summary: "A platform's invoices, newest first, cursor-paged",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { query: InvoiceListQuery },
    responses: { 200: InvoiceList, 400: null, 401: null, 403: null, 404: null },
    tags: invoices
  },
  getInvoice: {
    method: "GET",
    path: "/api/billing/invoices/{id}",
    summary: "One invoice with its lines; `platformId` optional (the seed's two single-invoice routes)",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { params: InvoiceParams, query: InvoiceQuery },
    responses: { 200: InvoiceRecord, 400: null, 401: null, 403: null, 404: null },
    tags: invoices
  },
  listPaymentMethods: {
    method: "GET",
    path: "/api/billing/payment-methods",
    summary: "The payment methods of the caller's platform's customer",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    responses: { 200: PaymentMethodList, 401: null, 403: null, 404: null },
    tags: payments
  },
  createSetupIntent: {
    method: "POST",
    path: "/api/billing/setup-intent",
    summary: "A setup intent at the payment provider for the caller's platform's customer",
    auth: "caller",
    permission: "billing:manage",
    tenant: "platform",
    responses: { 200: SetupIntentRecord, 401: null, 403: null, 404: null },
    tags: payments
  },
  createPortalSession: {
    method: "POST",
    path: "/api/billing/portal",
    summary: "A customer-portal session: a page where the customer changes the payment method or cancels",
    auth: "caller",
    permission: "billing:manage",
    tenant: "platform",
    request: { body: PortalRequest },
    responses: { 200: PortalSession, 400: null, 401: null, 403: null, 404: null },
    tags: payments
  },
  upgrade: {
    method: "POST",
    path: "/api/billing/upgrade",
    summary: "Upgrade the caller's free platform to a paid plan, idempotent by `idempotencyKey` (errors without `details`)",
    auth: "caller",
    permission: "billing:manage",
    tenant: "platform",
    request: { body: UpgradeRequest },
    responses: { 200: UpgradeResult, 400: null, 401: null, 402: null, 404: null, 409: null },
    tags: subscriptions
  },
  ensurePlatformSubscription: {
    method: "POST",
    path: "/internal/platforms/{platformId}/subscription",
    summary: "Make a just-created platform's free subscription and provider customer now, and set the customer's email when the body names one (the service key; the registry's hooks); idempotent",
    auth: "service",
    request: { params: PlatformParams, body: EnsurePlatformSubscriptionRequest.optional() },
    responses: { 200: SubscriptionRecord, 400: null, 401: null, 404: null },
    tags: ["billing: internal"]
  }
})

/**
 * Every route of the billing service, the catalogue the route table, the gateway and the SDK read:
 * the core above; metering spreads its `UsageRoutes` (`usage.ts`) in here.
 */
export const BillingRoutes = defineRoutes({
  ...BillingCoreRoutes,
  ...ProviderRoutes,
  ...OperatorRoutes,
  ...PortalRoutes,
  ...WebhookRoutes,
  ...UsageRoutes
})
