import { z } from "zod"
import { BoundedId } from "../Bounds.js"
import { naming } from "../PathRecords.js"
import { defineRoutes } from "../Routes.js"
import {
  CancelProviderSubscriptionQuery,
  CreateCustomerRequest,
  CreateProviderSubscriptionRequest,
  CustomerRecord,
  CustomerParams,
  SubscriptionParams,
  PaymentMethodList,
  PaymentMethodRecord,
  PaymentMethodTypeQuery,
  ProviderSubscriptionList,
  ProviderSubscriptionRecord,
  UpdateCustomerRequest,
  UpdateProviderSubscriptionRequest
} from "./schemas.js"

const tags = ["billing: provider"]

/**
 * The payment provider's objects at the root path: customers, their subscriptions and
 * payment methods. A tenant reaches its own platform's customer (`billing:read` / `billing:manage`;
 * another's: 404); operators and the service key reach every one and create detached customers
 * (decision 0442).
 */
export const ProviderRoutes = defineRoutes({
  createCustomer: {
    method: "POST",
    path: "/customers",
    summary: "Create a customer at the payment provider (operators)",
    description: "Creates a customer at the payment provider (email, name, metadata) and records it, for an operator setting up billing by hand.",
    auth: "operator",
    request: { body: CreateCustomerRequest },
    responses: { 201: CustomerRecord, 400: null, 401: null, 403: null },
    tags
  },
  getCustomer: {
    method: "GET",
    path: "/customers/{id}",
    summary: "A customer",
    description: "One customer of the payment provider by id, with its email, name and metadata. Another tenant's customer answers 404.",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { params: CustomerParams },
    responses: { 200: CustomerRecord, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  updateCustomer: {
    method: "PATCH",
    path: "/customers/{id}",
    summary: "Change a customer's email, name or metadata",
    description: "Changes a customer's email, name or metadata at the payment provider. Needs `billing:manage`.",
    auth: "caller",
    permission: "billing:manage",
    tenant: "platform",
    request: { params: CustomerParams, body: UpdateCustomerRequest },
    responses: { 200: CustomerRecord, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  listCustomerSubscriptions: {
    method: "GET",
    path: "/customers/{id}/subscriptions",
    summary: "A customer's subscriptions at the provider",
    description: "The subscriptions a customer holds at the payment provider, with their price, quantity and status.",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { params: CustomerParams },
    responses: { 200: ProviderSubscriptionList, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  listCustomerPaymentMethods: {
    method: "GET",
    path: "/customers/{id}/payment-methods",
    summary: "A customer's payment methods (`type`: only `card` exists)",
    description: "A customer's payment methods at the provider, filtered by `type` (only `card` exists).",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { params: CustomerParams, query: PaymentMethodTypeQuery },
    responses: { 200: PaymentMethodList, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  getDefaultPaymentMethod: {
    method: "GET",
    path: "/customers/{id}/payment-methods/default",
    summary: "A customer's default payment method (404 when none)",
    description: "The payment method invoices of this customer are charged to; 404 when it has none.",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { params: CustomerParams },
    responses: { 200: PaymentMethodRecord, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  createProviderSubscription: {
    method: "POST",
    path: "/subscriptions",
    summary: "Create a subscription at the provider for the caller's platform's customer",
    description: "Creates a subscription at the payment provider for the caller's platform's customer, with a `priceId` and quantity. A declined first payment is 402.",
    auth: "caller",
    permission: "billing:manage",
    tenant: "platform",
    request: { body: CreateProviderSubscriptionRequest },
    responses: { 201: ProviderSubscriptionRecord, 400: null, 401: null, 402: null, 403: null, 404: null },
    tags
  },
  getProviderSubscription: {
    method: "GET",
    path: "/subscriptions/{id}",
    summary: "A subscription at the provider",
    description: "One subscription at the payment provider by id, with its items, status and period.",
    auth: "caller",
    permission: "billing:read",
    tenant: "platform",
    request: { params: SubscriptionParams },
    responses: { 200: ProviderSubscriptionRecord, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  updateProviderSubscription: {
    method: "PATCH",
    path: "/subscriptions/{id}",
    summary: "Change a provider subscription's `priceId`, `quantity` or `paymentMethodId`",
    description: "Changes a provider subscription's price, quantity or payment method; a declined charge for the change is 402.",
    auth: "caller",
    permission: "billing:manage",
    tenant: "platform",
    request: { params: SubscriptionParams, body: UpdateProviderSubscriptionRequest },
    responses: { 200: ProviderSubscriptionRecord, 400: null, 401: null, 402: null, 403: null, 404: null },
    tags
  },
  cancelProviderSubscription: {
    method: "DELETE",
    path: "/subscriptions/{id}",
    summary: "Cancel a provider subscription now, or at period end with `?atPeriodEnd=true`",
    description: "Cancels a provider subscription now, or at the end of its period with `?atPeriodEnd=true`.",
    auth: "caller",
    permission: "billing:manage",
    tenant: "platform",
    request: { params: SubscriptionParams, query: CancelProviderSubscriptionQuery },
    responses: { 200: ProviderSubscriptionRecord, 400: null, 401: null, 403: null, 404: null },
    tags
  }
})

/** The local customer portal's pages (decision 0441): the session id in the path is the credential. */
/** The path of a portal session (an unknown one answers as the portal does: `Customer not found`). */
export const PortalParams = z.object({ sessionId: naming(BoundedId, "Customer not found") })
export const PortalPaymentMethodForm = z.object({ card: z.string().min(1).max(64) })

export const PortalRoutes = defineRoutes({
  portalPage: {
    method: "GET",
    path: "/portal/sessions/{sessionId}",
    summary: "The local customer portal: the subscription, the payment methods, a card form and a cancel button",
    description: "Core's local customer portal (when no provider portal is configured), as HTML: the subscription, the cards on file, a card form and a cancel button. Public: the session id in the path is the credential; an unknown or expired session is 404.",
    auth: "public",
    suspension: "exempt",
    request: { params: PortalParams },
    responses: { 200: { contentType: "text/html", description: "The portal page" }, 404: null },
    tags: ["billing: payments"]
  },
  portalPaymentMethod: {
    method: "POST",
    path: "/portal/sessions/{sessionId}/payment-method",
    summary: "The portal's card form: attach the card, make it the default, pay what is open",
    description: "The local portal's card form: attaches the card to the customer, makes it the default, tries to pay what is open, and redirects (303) back to the portal page.",
    auth: "public",
    suspension: "exempt",
    request: { params: PortalParams, body: PortalPaymentMethodForm, contentTypes: ["application/x-www-form-urlencoded", "application/json"] },
    responses: { 303: { description: "Back to the portal page" }, 400: null, 404: null },
    tags: ["billing: payments"]
  },
  portalCancel: {
    method: "POST",
    path: "/portal/sessions/{sessionId}/cancel",
    summary: "The portal's cancel button: cancel at the end of the period",
    description: "The local portal's cancel button: the subscription cancels at the end of its period; redirects (303) back to the portal page.",
    auth: "public",
    suspension: "exempt",
    request: { params: PortalParams },
    responses: { 303: { description: "Back to the portal page" }, 404: null },
    tags: ["billing: payments"]
  }
})

/** What a webhook delivery answers: the event, and whether it was seen before. */
export const WebhookAck = z.object({ received: z.literal(true), id: z.string(), type: z.string(), duplicate: z.boolean() }).meta({ id: "BillingWebhookAck" })

/** Stripe's webhook (decision 0443): verified by signature on the raw body, processed once by event id. */
export const WebhookRoutes = defineRoutes({
  stripeWebhook: {
    method: "POST",
    path: "/webhooks/stripe",
    summary: "Stripe's webhook: the raw body verified by its Stripe-Signature, each event processed once",
    description: "Stripe's events (invoices paid or failed, subscriptions changed, …): the raw body is verified with the `Stripe-Signature` header and `STRIPE_WEBHOOK_SECRET` (400 when it does not verify), and each event id is processed once. 404 when Stripe is not configured. Not rate-limited.",
    auth: "public",
    suspension: "exempt",
    rateLimit: "exempt",
    responses: { 200: WebhookAck, 400: null, 404: null, 413: null },
    tags: ["billing: payments"]
  }
})
