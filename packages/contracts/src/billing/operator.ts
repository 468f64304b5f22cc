import { defineRoutes } from "../Routes.js"
import {
  CreditRecord,
  CreditRequest,
  GenerateInvoiceRequest,
  InvoiceRecord,
  OperatorLogList,
  OperatorLogQuery,
  OverrideRequest,
  SubscriptionParams,
  OverviewRecord,
  SubscriptionRecord,
  TrialRequest
} from "./schemas.js"

const tags = ["billing: operator"]

/**
 * The operator tools: every `/operator/...` route is for operators and the
 * service key only (403 for anyone else). Each action is kept in the operator log (decision 0437),
 * read at `GET /operator/log`.
 */
export const OperatorRoutes = defineRoutes({
  createCredit: {
    method: "POST",
    path: "/operator/credits",
    summary: "Credit a customer's balance (integer minor units), used by its next invoices",
    description: "Adds a credit in integer minor units to a customer's balance, with a reason; its next invoices use it before charging. Recorded in the operator log. Operators only.",
    auth: "operator",
    request: { body: CreditRequest },
    responses: { 201: CreditRecord, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  generateInvoice: {
    method: "POST",
    path: "/operator/invoices/generate",
    summary: "Generate and finalize an invoice for a customer's period so far",
    description: "Generates and finalizes an invoice now for a customer's period so far (subscription, usage overage, credits), instead of waiting for the period's end. Operators only.",
    auth: "operator",
    request: { body: GenerateInvoiceRequest },
    responses: { 201: InvoiceRecord, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  overrideSubscription: {
    method: "PATCH",
    path: "/operator/subscriptions/{id}/override",
    summary: "Override a subscription's tier and/or trial end (epoch milliseconds)",
    description: "Sets a subscription's tier and/or trial end (epoch milliseconds) without charging, e.g. for a negotiated deal; before and after go to the operator log. Operators only.",
    auth: "operator",
    request: { params: SubscriptionParams, body: OverrideRequest },
    responses: { 200: SubscriptionRecord, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  startTrial: {
    method: "POST",
    path: "/operator/subscriptions/{id}/trial",
    summary: "Give a subscription a trial of `trialDays` (1 to 365) from now",
    description: "Starts a trial of `trialDays` (1 to 365) from now on a subscription: its status becomes `trialing`. A subscription already trialing is 409. Operators only.",
    auth: "operator",
    request: { params: SubscriptionParams, body: TrialRequest },
    responses: { 200: SubscriptionRecord, 400: null, 401: null, 403: null, 404: null, 409: null },
    tags
  },
  overview: {
    method: "GET",
    path: "/operator/overview",
    summary: "Monthly recurring revenue (minor units), active platforms, trials, past due",
    description: "Billing at a glance for operators: monthly recurring revenue in minor units, the number of active platforms, trials and past-due subscriptions.",
    auth: "operator",
    responses: { 200: OverviewRecord, 401: null, 403: null },
    tags
  },
  operatorLog: {
    method: "GET",
    path: "/operator/log",
    summary: "The operator log: actor, time, reason, before and after of each operator action",
    description: "Every operator action on billing, newest first, cursor-paged: who, when, why, and the record before and after.",
    auth: "operator",
    request: { query: OperatorLogQuery },
    responses: { 200: OperatorLogList, 400: null, 401: null, 403: null },
    tags
  }
})
