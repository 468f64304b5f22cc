import { Effect, Layer, Option, Redacted } from "effect"
import Stripe from "stripe"
import { BillingConfig, type BillingSettings } from "../Config.js"
import { testPaymentMethodOf } from "../internal/testCards.js"
import { stripePriceOf } from "../internal/stripePrices.js"
import { type InvoiceItemRequest, PaymentProvider, type ProviderInvoice } from "../ports/PaymentProvider.js"
import { call, cardError, defect, isMissing, isStripeError, lookup, must } from "./stripeCalls.js"
import { idOf, stringMetadata, toCreditNote, toCustomer, toInvoice, toPaymentMethod, toRefund, toSeconds, toSubscription } from "./stripeObjects.js"
import { noSuchPaymentMethod, paymentDeclined } from "../Errors.js"

/** Retries of a request Stripe answers 429, 409 (lock) or 5xx, or that fails on the network (the SDK's, with an idempotency key). */
const MAX_NETWORK_RETRIES = 2
/** How long one request to Stripe may take. */
const TIMEOUT_MS = 20_000

/** The SDK's client for the settings: Stripe itself, or the host, port and protocol of `STRIPE_API_URL`. */
export const stripeClient = (settings: BillingSettings, secretKey: Redacted.Redacted<string>): Stripe => {
  const api = Option.getOrUndefined(settings.stripeApiUrl)
  return new Stripe(Redacted.value(secretKey), {
    maxNetworkRetries: MAX_NETWORK_RETRIES,
    timeout: TIMEOUT_MS,
    telemetry: false,
    appInfo: { name: "core-billing" },
    ...(api === undefined
      ? {}
      : {
        host: api.hostname,
        port: api.port === "" ? (api.protocol === "https:" ? 443 : 80) : Number(api.port),
        protocol: api.protocol === "https:" ? "https" : "http"
      })
  })
}

/**
 * The Stripe payment provider (DESIGN §7, decision 0444): the port over Stripe's API with the
 * `stripe` SDK — customers, payment methods (Stripe's test ids, and test card numbers mapped to
 * them), setup intents, off-session payment intents for charges, customer balance transactions for
 * credits, subscriptions on the plans' prices, the hosted customer portal and invoices. A declined
 * card (402 `card_error`) is `PaymentFailed`; a missing object is `None`/`NotFound`; 429 and
 * network failures are retried by the SDK with an idempotency key; anything else is a defect.
 */
export const makePaymentProviderStripe = (settings: BillingSettings, stripe: Stripe) => {
  /** Every line of an invoice: the embedded first page, then the rest from `invoices.listLineItems`. */
  const allLines = (invoice: Stripe.Invoice): Effect.Effect<ReadonlyArray<Stripe.InvoiceLineItem>> =>
    invoice.lines?.has_more === true && invoice.id !== undefined
      ? must("invoices.listLineItems", () => stripe.invoices.listLineItems(invoice.id!, { limit: 100 }).autoPagingToArray({ limit: 10_000 }))
      : Effect.succeed(invoice.lines?.data ?? [])
  const readInvoice = (id: string) => Effect.flatMap(provider.getInvoice(id), Option.match({ onNone: () => defect("invoices.retrieve")(new Error(`invoice ${id} is gone`)), onSome: Effect.succeed }))
  const provider: PaymentProvider["Type"] = PaymentProvider.of({
    kind: "stripe",
    createCustomer: (input) =>
      Effect.map(
        must("customers.create", () =>
          stripe.customers.create({
            email: input.email,
            ...(input.name === undefined ? {} : { name: input.name }),
            metadata: stringMetadata({ ...input.metadata, ...(input.platformId === undefined ? {} : { platformId: input.platformId }) })
          }, input.idempotencyKey === undefined ? {} : { idempotencyKey: input.idempotencyKey })),
        toCustomer
      ),
    getCustomer: (id) =>
      lookup("customers.retrieve", () => stripe.customers.retrieve(id), (customer) => (customer.deleted === true ? undefined : toCustomer(customer as Stripe.Customer))),
    updateCustomer: (id, patch) =>
      lookup("customers.update", () =>
        stripe.customers.update(id, {
          ...(patch.email === undefined ? {} : { email: patch.email }),
          ...(patch.name === undefined ? {} : { name: patch.name }),
          ...(patch.metadata === undefined ? {} : { metadata: stringMetadata(patch.metadata) })
        }), toCustomer),
    attachPaymentMethod: (customerId, reference) => {
      const notFound = noSuchPaymentMethod(reference)
      // A test card number never goes to Stripe: its test payment-method id does (decision 0444).
      const id = testPaymentMethodOf(reference) ?? (/^pm_[A-Za-z0-9_]{1,200}$/.test(reference) ? reference : undefined)
      if (id === undefined) return Effect.fail(notFound)
      return call("paymentMethods.attach", () => stripe.paymentMethods.attach(id, { customer: customerId })).pipe(
        Effect.map(toPaymentMethod),
        Effect.catchAll((error) => (isMissing(error) ? Effect.fail(notFound) : defect("paymentMethods.attach")(error)))
      )
    },
    listPaymentMethods: (customerId) =>
      Effect.map(
        must("paymentMethods.list", () => stripe.paymentMethods.list({ customer: customerId, type: "card", limit: 100 })),
        (page) => page.data.map(toPaymentMethod).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
      ),
    setDefaultPaymentMethod: (customerId, paymentMethodId) =>
      Effect.asVoid(must("customers.update", () => stripe.customers.update(customerId, { invoice_settings: { default_payment_method: paymentMethodId } }))),
    createSetupIntent: (customerId) =>
      Effect.map(
        must("setupIntents.create", () => stripe.setupIntents.create({ customer: customerId, usage: "off_session" })),
        (intent) => ({ id: intent.id, customerId, clientSecret: intent.client_secret ?? "", status: intent.status })
      ),
    charge: (request) =>
      call("paymentIntents.create", () =>
        stripe.paymentIntents.create({
          amount: request.amountMinor,
          currency: request.currency,
          customer: request.customerId,
          payment_method: request.paymentMethodId,
          confirm: true,
          off_session: true,
          description: request.description.slice(0, 200),
          metadata: stringMetadata(request.invoiceId === undefined ? {} : { invoiceId: request.invoiceId })
        })).pipe(
          Effect.catchAll(cardError("paymentIntents.create")),
          Effect.flatMap((intent) =>
            intent.status === "succeeded" || intent.status === "processing"
              ? Effect.succeed({ id: intent.id })
              : Effect.fail(paymentDeclined("The payment needs the customer's action", intent.status))
          )
        ),
    adjustBalance: (customerId, deltaMinor, currency, description) =>
      Effect.gen(function*() {
        // A credit here (positive) is a negative amount at Stripe.
        const transaction = yield* must("customers.createBalanceTransaction", () =>
          stripe.customers.createBalanceTransaction(customerId, { amount: -deltaMinor, currency, description: description.slice(0, 350) }))
        return { id: transaction.id, balanceMinor: -transaction.ending_balance }
      }),
    createSubscription: (input) =>
      call("subscriptions.create", () =>
        stripe.subscriptions.create({
          customer: input.customerId,
          items: [{ price: stripePriceOf(settings, input.priceId), quantity: input.quantity }],
          default_payment_method: input.paymentMethodId,
          // Charge now or fail: a declined card is a 402, not an incomplete subscription.
          payment_behavior: "error_if_incomplete",
          metadata: stringMetadata(input.metadata)
        }, input.idempotencyKey === undefined ? {} : { idempotencyKey: input.idempotencyKey })).pipe(Effect.map(toSubscription), Effect.catchAll(cardError("subscriptions.create"))),
    getSubscription: (id) => lookup("subscriptions.retrieve", () => stripe.subscriptions.retrieve(id), toSubscription),
    listSubscriptions: (customerId) =>
      Effect.map(must("subscriptions.list", () => stripe.subscriptions.list({ customer: customerId, status: "all", limit: 100 })), (page) =>
        page.data.map(toSubscription).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))),
    updateSubscription: (id, patch) =>
      Effect.gen(function*() {
        const current = yield* lookup("subscriptions.retrieve", () => stripe.subscriptions.retrieve(id), (subscription) => subscription)
        if (Option.isNone(current)) return Option.none()
        const item = current.value.items.data[0]
        const changesItem = patch.priceId !== undefined || patch.quantity !== undefined
        return yield* lookup("subscriptions.update", () =>
          stripe.subscriptions.update(id, {
            ...(changesItem
              ? {
                items: [{
                  ...(item === undefined ? {} : { id: item.id }),
                  ...(patch.priceId === undefined ? {} : { price: stripePriceOf(settings, patch.priceId) }),
                  ...(patch.quantity === undefined ? {} : { quantity: patch.quantity })
                }],
                proration_behavior: patch.proration ?? "create_prorations"
              }
              : {}),
            ...(patch.paymentMethodId === undefined ? {} : { default_payment_method: patch.paymentMethodId })
          }), toSubscription)
      }),
    cancelSubscription: (id, atPeriodEnd, options) =>
      atPeriodEnd
        ? lookup("subscriptions.update", () => stripe.subscriptions.update(id, { cancel_at_period_end: true }), toSubscription)
        : lookup("subscriptions.cancel", () => stripe.subscriptions.cancel(id, options?.prorate === true ? { prorate: true } : {}), toSubscription),
    createPortalSession: (customerId, returnUrl) =>
      Effect.map(
        must("billingPortal.sessions.create", () => stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl })),
        (session) => Option.some({ id: session.id, url: session.url })
      ),
    getInvoice: (id) =>
      Effect.flatMap(lookup("invoices.retrieve", () => stripe.invoices.retrieve(id), (invoice) => invoice), (found) =>
        Option.isNone(found)
          ? Effect.succeed(Option.none<ProviderInvoice>())
          : Effect.map(allLines(found.value), (lines) => Option.some(toInvoice(found.value, lines)))),
    previewPriceChange: (subscriptionId, priceId, prorationDate) =>
      Effect.gen(function*() {
        const current = yield* lookup("subscriptions.retrieve", () => stripe.subscriptions.retrieve(subscriptionId), (subscription) => subscription)
        if (Option.isNone(current)) return Option.none()
        const item = current.value.items.data[0]
        if (item === undefined) return Option.none()
        const preview = yield* lookup("invoices.createPreview", () =>
          stripe.invoices.createPreview({
            subscription: subscriptionId,
            subscription_details: {
              items: [{ id: item.id, price: stripePriceOf(settings, priceId) }],
              proration_date: toSeconds(prorationDate),
              proration_behavior: "always_invoice"
            }
          }), (invoice) => invoice)
        return Option.map(preview, (invoice) => toInvoice(invoice))
      }),
    changePrice: (subscriptionId, priceId, prorationDate, idempotencyKey) =>
      Effect.gen(function*() {
        const current = yield* lookup("subscriptions.retrieve", () => stripe.subscriptions.retrieve(subscriptionId), (subscription) => subscription)
        if (Option.isNone(current)) return Option.none()
        const item = current.value.items.data[0]
        const updated = yield* call("subscriptions.update", () =>
          stripe.subscriptions.update(subscriptionId, {
            items: [{ ...(item === undefined ? {} : { id: item.id }), price: stripePriceOf(settings, priceId) }],
            // The same instant as the preview, invoiced and charged now: the charge is the preview's (decision 0449).
            proration_date: toSeconds(prorationDate),
            proration_behavior: "always_invoice",
            payment_behavior: "error_if_incomplete"
          }, { idempotencyKey })).pipe(
            Effect.map(Option.some),
            Effect.catchAll((error) => (isMissing(error) ? Effect.succeed(Option.none<Stripe.Subscription>()) : cardError("subscriptions.update")(error)))
          )
        if (Option.isNone(updated)) return Option.none()
        const subscription = toSubscription(updated.value)
        const latest = subscription.latestInvoiceId
        // Stripe's `latest_invoice` is the proration invoice only when the update made one.
        const invoice = latest === null || latest === idOf(current.value.latest_invoice)
          ? Option.none<ProviderInvoice>()
          : yield* provider.getInvoice(latest)
        return Option.some({ subscription, invoice })
      }),
    createInvoiceItem: (request: InvoiceItemRequest) =>
      Effect.gen(function*() {
        // A renewal Stripe has not finalized yet (about an hour after the period ends) takes the item
        // itself; else it waits, pending, for the subscription's next invoice (or the customer's one-off).
        const subscription = request.subscriptionId
        const drafts = subscription === null ? null : yield* must("invoices.list", () => stripe.invoices.list({ subscription, status: "draft", limit: 10 }))
        const draft = drafts?.data.find((invoice) => invoice.billing_reason === "subscription_cycle")
        const item = yield* must("invoiceItems.create", () =>
          stripe.invoiceItems.create({
            customer: request.customerId,
            ...(subscription === null ? {} : { subscription }),
            amount: request.amountMinor,
            currency: request.currency,
            description: request.description.slice(0, 500),
            metadata: stringMetadata(request.metadata),
            period: { start: toSeconds(request.periodStart), end: toSeconds(request.periodEnd) },
            ...(draft?.id === undefined ? {} : { invoice: draft.id })
          }, { idempotencyKey: request.idempotencyKey }))
        return { id: item.id }
      }),
    previewSubscription: (customerId, priceId) =>
      lookup("invoices.createPreview", () =>
        stripe.invoices.createPreview({
          customer: customerId,
          subscription_details: { items: [{ price: stripePriceOf(settings, priceId), quantity: 1 }] }
        }), (invoice) => toInvoice(invoice)),
    invoicePending: (input) =>
      Effect.gen(function*() {
        if (input.ifPending === true) {
          const pending = yield* must("invoiceItems.list", () => stripe.invoiceItems.list({ customer: input.customerId, pending: true, limit: 1 }))
          if (pending.data.length === 0) return Option.none<ProviderInvoice>()
        }
        // Stripe's one-off invoice: the pending items included, finalized and paid by billing now (not in an hour).
        const created = yield* must("invoices.create", () =>
          stripe.invoices.create({
            customer: input.customerId,
            pending_invoice_items_behavior: "include",
            collection_method: "charge_automatically",
            auto_advance: false,
            description: input.description.slice(0, 500),
            metadata: input.metadata
          }, { idempotencyKey: `${input.idempotencyKey}-create` }))
        const id = created.id!
        if ((yield* readInvoice(id)).status === "draft") {
          yield* must("invoices.finalizeInvoice", () => stripe.invoices.finalizeInvoice(id, { auto_advance: false }, { idempotencyKey: `${input.idempotencyKey}-finalize` }))
        }
        const read = yield* readInvoice(id)
        // A declined card leaves the invoice open and attempted: mirrored as such, not a failure.
        return Option.some(read.status === "open" ? (yield* provider.payInvoice(id, `${input.idempotencyKey}-pay`)).invoice : read)
      }),
    payInvoice: (id, idempotencyKey) =>
      Effect.gen(function*() {
        const failure = yield* call("invoices.pay", () => stripe.invoices.pay(id, {}, { idempotencyKey })).pipe(
          Effect.as<string | null>(null),
          Effect.catchAll((error) => (isStripeError(error) && error.type === "StripeCardError" ? Effect.succeed(error.message.slice(0, 200)) : defect("invoices.pay")(error)))
        )
        return { invoice: yield* readInvoice(id), failure }
      }),
    markInvoiceUncollectible: (id) =>
      Effect.flatMap(must("invoices.markUncollectible", () => stripe.invoices.markUncollectible(id)), () => readInvoice(id)),
    invoiceOf: (object) =>
      Effect.gen(function*() {
        // Since API 2025-03-31 a payment reaches its invoice through `invoice_payments` (charges and
        // payment intents no longer name it).
        const byIntent = (intent: string | null) =>
          intent === null
            ? Effect.succeed(Option.none<string>())
            : Effect.map(must("invoicePayments.list", () => stripe.invoicePayments.list({ payment: { type: "payment_intent", payment_intent: intent }, limit: 1 })), (page) =>
              Option.fromNullable(idOf(page.data[0]?.invoice)))
        if (object.kind === "credit_note") {
          return Option.flatMap(yield* lookup("creditNotes.retrieve", () => stripe.creditNotes.retrieve(object.id), (note) => note), (note) => Option.fromNullable(idOf(note.invoice)))
        }
        const intent = object.kind === "refund"
          ? yield* lookup("refunds.retrieve", () => stripe.refunds.retrieve(object.id), (refund) => idOf(refund.payment_intent) ?? undefined)
          : yield* lookup("charges.retrieve", () => stripe.charges.retrieve(object.id), (charge) => idOf(charge.payment_intent) ?? undefined)
        return yield* byIntent(Option.getOrNull(intent))
      }),
    invoiceAdjustments: (invoiceId) =>
      Effect.gen(function*() {
        const payments = yield* must("invoicePayments.list", () => stripe.invoicePayments.list({ invoice: invoiceId, limit: 100 }).autoPagingToArray({ limit: 1_000 }))
        const intents = [...new Set(payments.map((payment) => idOf(payment.payment?.payment_intent)).filter((id): id is string => id !== null))]
        const refunds = yield* Effect.forEach(intents, (intent) =>
          must("refunds.list", () => stripe.refunds.list({ payment_intent: intent, limit: 100 }).autoPagingToArray({ limit: 1_000 })))
        const notes = yield* must("creditNotes.list", () => stripe.creditNotes.list({ invoice: invoiceId, limit: 100 }).autoPagingToArray({ limit: 1_000 }))
        return {
          refunds: refunds.flat().map(toRefund).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id)),
          creditNotes: notes.map(toCreditNote).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
        }
      }),
    unpaidInvoices: (customerId) =>
      Effect.map(must("invoices.list", () => stripe.invoices.list({ customer: customerId, status: "open", limit: 100 })), (page) =>
        page.data.map((invoice) => toInvoice(invoice)).filter((invoice) => invoice.attempted))
  })
  return provider
}

/** The Stripe provider over `BillingConfig` (its secret key must be set). */
export const PaymentProviderStripe: Layer.Layer<PaymentProvider, never, BillingConfig> = Layer.effect(
  PaymentProvider,
  Effect.gen(function*() {
    const settings = yield* BillingConfig
    if (Option.isNone(settings.stripeSecretKey)) return yield* Effect.dieMessage("The Stripe payment provider needs STRIPE_SECRET_KEY")
    return makePaymentProviderStripe(settings, stripeClient(settings, settings.stripeSecretKey.value))
  })
)
