import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer, Option } from "effect"
import { billingId } from "../internal/ids.js"
import { type CardBehaviour, DECLINE_MESSAGES, testCardOf } from "../internal/testCards.js"
import { type Customer, type PaymentMethod, PaymentProvider, type ProviderSubscription } from "../ports/PaymentProvider.js"
import { noSuchPaymentMethod, paymentDeclined } from "../Errors.js"

const toCustomer = (row: any): Customer => ({
  id: row.id,
  email: row.email,
  name: row.name ?? null,
  metadata: Rows.jsonObject(row.metadata) ?? {},
  platformId: row.platform_id ?? null,
  balanceMinor: Number(row.balance_minor),
  currency: row.currency,
  defaultPaymentMethodId: row.default_payment_method_id ?? null,
  createdAt: Rows.toDate(row.created_at)
})

const toPaymentMethod = (row: any): PaymentMethod => ({
  id: row.id,
  customerId: row.customer_id ?? null,
  brand: row.brand,
  last4: row.last4,
  expMonth: Number(row.exp_month),
  expYear: Number(row.exp_year),
  createdAt: Rows.toDate(row.created_at)
})

const toSubscription = (row: any): ProviderSubscription => ({
  id: row.id,
  customerId: row.customer_id,
  priceId: row.price_id,
  quantity: Number(row.quantity),
  paymentMethodId: row.payment_method_id ?? null,
  metadata: Rows.jsonObject(row.metadata) ?? {},
  status: row.status,
  cancelAtPeriodEnd: Boolean(row.cancel_at_period_end),
  currentPeriodStart: Rows.toDate(row.current_period_start),
  currentPeriodEnd: Rows.toDate(row.current_period_end),
  cancelledAt: Rows.toDateOrNull(row.cancelled_at),
  createdAt: Rows.toDate(row.created_at),
  latestInvoiceId: null
})


/** One month after an instant (the provider's subscription periods). */
export const addMonth = (at: Date): Date => {
  const next = new Date(at)
  next.setUTCMonth(next.getUTCMonth() + 1)
  return next
}

/**
 * The local payment provider (DESIGN §7, the default): everything in PostgreSQL, works offline.
 * Stripe's test cards and test payment-method ids behave as they do at Stripe (decision 0433).
 */
export const PaymentProviderLocal: Layer.Layer<PaymentProvider, never, SqlClient.SqlClient> = Layer.effect(
  PaymentProvider,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const orDie = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.orDie(effect)

    const getCustomer = (id: string) =>
      orDie(sql`SELECT * FROM billing.customers WHERE id = ${id}`).pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toCustomer)))

    const getSubscription = (id: string) =>
      orDie(sql`SELECT * FROM billing.provider_subscriptions WHERE id = ${id}`).pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toSubscription))
      )

    const updateSubscription = (id: string, patch: {
      readonly priceId?: string | undefined
      readonly quantity?: number | undefined
      readonly paymentMethodId?: string | undefined
    }) =>
      Effect.gen(function*() {
        const found = yield* getSubscription(id)
        if (Option.isNone(found)) return found
        const current = found.value
        const rows = yield* orDie(sql`UPDATE billing.provider_subscriptions SET
            price_id = ${patch.priceId ?? current.priceId},
            quantity = ${patch.quantity ?? current.quantity},
            payment_method_id = ${patch.paymentMethodId ?? current.paymentMethodId},
            updated_at = ${yield* now}
          WHERE id = ${id} RETURNING *`)
        return Option.some(toSubscription(rows[0]))
      })

    const behaviourOf = (paymentMethodId: string) =>
      orDie(sql`SELECT behaviour FROM billing.payment_methods WHERE id = ${paymentMethodId}`).pipe(
        Effect.map((rows) => rows[0]?.behaviour as CardBehaviour | undefined)
      )

    return PaymentProvider.of({
      kind: "local",
      createCustomer: (input) =>
        Effect.gen(function*() {
          const id = yield* billingId("cus")
          const at = yield* now
          const rows = yield* orDie(sql`INSERT INTO billing.customers (id, email, name, metadata, platform_id, created_at, updated_at)
            VALUES (${id}, ${input.email}, ${input.name ?? null}, ${JSON.stringify(input.metadata ?? {})}::jsonb, ${input.platformId ?? null}, ${at}, ${at})
            RETURNING *`)
          return toCustomer(rows[0])
        }),
      getCustomer,
      updateCustomer: (id, patch) =>
        Effect.gen(function*() {
          const found = yield* getCustomer(id)
          if (Option.isNone(found)) return found
          const current = found.value
          const rows = yield* orDie(sql`UPDATE billing.customers SET
              email = ${patch.email ?? current.email},
              name = ${patch.name ?? current.name},
              metadata = ${JSON.stringify(patch.metadata ?? current.metadata)}::jsonb,
              updated_at = ${yield* now}
            WHERE id = ${id} RETURNING *`)
          return Option.some(toCustomer(rows[0]))
        }),
      attachPaymentMethod: (customerId, reference) =>
        Effect.gen(function*() {
          const own = yield* orDie(sql`SELECT * FROM billing.payment_methods
            WHERE id = ${reference} AND customer_id = ${customerId} AND detached_at IS NULL`)
          if (own.length > 0) return toPaymentMethod(own[0])
          const card = testCardOf(reference)
          if (card === undefined) return yield* noSuchPaymentMethod(reference)
          const id = yield* billingId("pm")
          const at = yield* now
          const rows = yield* orDie(sql`INSERT INTO billing.payment_methods (id, customer_id, brand, last4, exp_month, exp_year, behaviour, created_at)
            VALUES (${id}, ${customerId}, ${card.brand}, ${card.last4}, 12, ${at.getUTCFullYear() + 3}, ${card.behaviour}, ${at})
            RETURNING *`)
          return toPaymentMethod(rows[0])
        }),
      listPaymentMethods: (customerId) =>
        orDie(sql`SELECT * FROM billing.payment_methods WHERE customer_id = ${customerId} AND detached_at IS NULL ORDER BY created_at, id`).pipe(
          Effect.map((rows) => rows.map(toPaymentMethod))
        ),
      setDefaultPaymentMethod: (customerId, paymentMethodId) =>
        Effect.gen(function*() {
          yield* orDie(sql`UPDATE billing.customers SET default_payment_method_id = ${paymentMethodId}, updated_at = ${yield* now} WHERE id = ${customerId}`)
        }),
      createSetupIntent: (customerId) =>
        Effect.gen(function*() {
          const id = yield* billingId("seti")
          const secret = `${id}_secret_${(yield* billingId("s")).slice(2)}`
          yield* orDie(sql`INSERT INTO billing.setup_intents (id, customer_id, client_secret, status, created_at)
            VALUES (${id}, ${customerId}, ${secret}, 'requires_payment_method', ${yield* now})`)
          return { id, customerId, clientSecret: secret, status: "requires_payment_method" }
        }),
      charge: (request) =>
        Effect.gen(function*() {
          const behaviour = (yield* behaviourOf(request.paymentMethodId)) ?? "card_declined"
          const id = yield* billingId("ch")
          const succeeded = behaviour === "succeeds"
          yield* orDie(sql`INSERT INTO billing.charges (id, customer_id, payment_method_id, amount_minor, currency, status, failure_code, invoice_id, created_at)
            VALUES (${id}, ${request.customerId}, ${request.paymentMethodId}, ${request.amountMinor}, ${request.currency},
              ${succeeded ? "succeeded" : "failed"}, ${succeeded ? null : behaviour}, ${request.invoiceId ?? null}, ${yield* now})`)
          if (behaviour === "succeeds") return { id }
          return yield* paymentDeclined(DECLINE_MESSAGES[behaviour], behaviour)
        }),
      adjustBalance: (customerId, deltaMinor, currency, description, invoiceId) =>
        Effect.gen(function*() {
          const id = yield* billingId("cbtxn")
          const at = yield* now
          yield* orDie(sql`INSERT INTO billing.balance_transactions (id, customer_id, amount_minor, currency, description, invoice_id, created_at)
            VALUES (${id}, ${customerId}, ${deltaMinor}, ${currency}, ${description}, ${invoiceId ?? null}, ${at})`)
          const rows = yield* orDie(sql`UPDATE billing.customers SET balance_minor = balance_minor + ${deltaMinor}, updated_at = ${at}
            WHERE id = ${customerId} RETURNING balance_minor`)
          return { id, balanceMinor: Number(rows[0]?.balance_minor ?? 0) }
        }),
      createSubscription: (input) =>
        Effect.gen(function*() {
          const id = yield* billingId("sub")
          const at = yield* now
          const rows = yield* orDie(sql`INSERT INTO billing.provider_subscriptions
              (id, customer_id, price_id, quantity, payment_method_id, metadata, status, current_period_start, current_period_end, created_at, updated_at)
            VALUES (${id}, ${input.customerId}, ${input.priceId}, ${input.quantity}, ${input.paymentMethodId}, ${JSON.stringify(input.metadata)}::jsonb,
              'active', ${at}, ${addMonth(at)}, ${at}, ${at})
            RETURNING *`)
          return toSubscription(rows[0])
        }),
      getSubscription,
      listSubscriptions: (customerId) =>
        orDie(sql`SELECT * FROM billing.provider_subscriptions WHERE customer_id = ${customerId} ORDER BY created_at, id`).pipe(
          Effect.map((rows) => rows.map(toSubscription))
        ),
      updateSubscription,
      cancelSubscription: (id, atPeriodEnd) =>
        Effect.gen(function*() {
          const at = yield* now
          const rows = atPeriodEnd
            ? yield* orDie(sql`UPDATE billing.provider_subscriptions SET cancel_at_period_end = true, updated_at = ${at} WHERE id = ${id} RETURNING *`)
            : yield* orDie(sql`UPDATE billing.provider_subscriptions SET status = 'canceled', cancelled_at = ${at}, updated_at = ${at} WHERE id = ${id} RETURNING *`)
          return Option.map(Option.fromNullable(rows[0]), toSubscription)
        }),
      // The local provider has no hosted portal (billing serves its own page) and no invoices of its own.
      createPortalSession: () => Effect.succeed(Option.none()),
      getInvoice: () => Effect.succeed(Option.none()),
      unpaidInvoices: () => Effect.succeed([]),
      // Billing prorates and invoices itself with the local provider (decision 0434): no provider preview.
      previewPriceChange: () => Effect.succeed(Option.none()),
      previewSubscription: () => Effect.succeed(Option.none()),
      invoicePending: () => Effect.dieMessage("The local payment provider keeps no invoices: billing invoices overage itself"),
      // Refunds and credit notes are the provider's after an invoice is paid; the local one makes none.
      invoiceOf: () => Effect.succeed(Option.none()),
      invoiceAdjustments: () => Effect.succeed({ refunds: [], creditNotes: [] }),
      payInvoice: () => Effect.dieMessage("The local payment provider keeps no invoices: billing collects its own"),
      markInvoiceUncollectible: () => Effect.dieMessage("The local payment provider keeps no invoices: billing collects its own"),
      changePrice: (id, priceId) =>
        Effect.map(updateSubscription(id, { priceId }), Option.map((subscription) => ({ subscription, invoice: Option.none() }))),
      // Billing invoices overage itself with the local provider (decision 0440); nothing is kept here.
      createInvoiceItem: () => Effect.dieMessage("The local payment provider keeps no invoice items: billing invoices overage itself")
    })
  })
)
