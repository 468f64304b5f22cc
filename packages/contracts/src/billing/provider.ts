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
 * The payment provider's objects at the root path (seed 001): customers, their subscriptions and
 * payment methods. A tenant reaches its own platform's customer (`billing:read` / `billing:manage`;
 * another's: 404); operators and the service key reach every one and create detached customers
 * (decision 0442).
 */
export const ProviderRoutes = defineRoutes({
  createCustomer: {
    method: "POST",
    path: "/customers",
    summary: "Create a customer at the payment provider (operators)",
    auth: "operator",
    request: { body: CreateCustomerRequest },
    responses: { 201: CustomerRecord, 400: null, 401: null, 403: null },
    tags
  },
  getCustomer: {
    method: "GET",
    path: "/customers/{id}",
    summary: "A customer",
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
    auth: "public",
    suspension: "exempt",
    rateLimit: "exempt",
    responses: { 200: WebhookAck, 400: null, 404: null, 413: null },
    tags: ["billing: payments"]
  }
})
