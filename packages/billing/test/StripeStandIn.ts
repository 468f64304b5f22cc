import { createHash, randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import Stripe from "stripe"
import { type Json, missing, MONTH, now, parseForm, prorate, StripeFailure } from "./StripeStandInShapes.js"
import { invoiceRoute } from "./StripeStandInInvoices.js"
import { StripeMoney } from "./StripeStandInMoney.js"

export { parseForm, prorate } from "./StripeStandInShapes.js"

/**
 * A local HTTP server standing in for Stripe's API (decision 0444), answering the documented request
 * and response shapes the billing adapter uses: form-encoded bodies (`items[0][price]=…`), bearer
 * secret keys, `Idempotency-Key` (the same key and body replay the first answer with
 * `Idempotent-Replayed: true`; another body is a 400 `idempotency_error`), errors as
 * `{ error: { type, code, message, decline_code, param } }`, 402 `card_error` for Stripe's declining
 * test cards, 404 `resource_missing`, and 429 with `Stripe-Should-Retry: true` when told to.
 */


interface Card {
  readonly brand: string
  readonly last4: string
  readonly decline?: { readonly code: string; readonly decline_code: string; readonly message: string }
}

const TEST_PAYMENT_METHODS: Readonly<Record<string, Card>> = {
  pm_card_visa: { brand: "visa", last4: "4242" },
  pm_card_mastercard: { brand: "mastercard", last4: "4444" },
  pm_card_chargeDeclined: { brand: "visa", last4: "0002", decline: { code: "card_declined", decline_code: "generic_decline", message: "Your card was declined." } },
  pm_card_chargeDeclinedInsufficientFunds: {
    brand: "visa",
    last4: "9995",
    decline: { code: "card_declined", decline_code: "insufficient_funds", message: "Your card has insufficient funds." }
  }
}

/** A recorded request: what the adapter sent. */
export interface SeenRequest {
  readonly method: string
  readonly path: string
  readonly body: Json
  readonly idempotencyKey: string | undefined
  readonly authorization: string | undefined
}

/** What the stand-in charges for a price it was not told of: by the plan its id names (`price_1StarterMonthly`: 2,900). */
const DEFAULT_PRICES: ReadonlyArray<readonly [RegExp, number]> = [[/starter/i, 2_900], [/growth/i, 9_900], [/scale/i, 49_900]]

export class StripeStandIn {
  readonly customers = new Map<string, Json>()
  readonly paymentMethods = new Map<string, Json & { readonly _card: Card }>()
  readonly subscriptions = new Map<string, Json>()
  readonly invoices = new Map<string, Json>()
  readonly paymentIntents = new Map<string, Json>()
  readonly balanceTransactions = new Map<string, Json>()
  readonly invoiceItems = new Map<string, Json>()
  /** Payments, refunds and credit notes (`StripeStandInMoney.ts`). */
  readonly money: StripeMoney = new StripeMoney(this)
  /** Unit amounts of prices (minor units); others by the plan their id names. */
  readonly prices = new Map<string, number>()
  readonly requests: Array<SeenRequest> = []
  /** Answer the next `count` requests to `path` (prefix) with 429 rate limit errors. */
  readonly rateLimits = new Map<string, number>()
  private readonly idempotent = new Map<string, { readonly hash: string; readonly status: number; readonly body: string }>()
  private server: Server | undefined
  private counter = 0

  constructor(readonly secretKey = "sk_test_standin") {}

  get url(): string {
    const address = this.server?.address() as AddressInfo
    return `http://127.0.0.1:${address.port}`
  }

  id(prefix: string): string {
    this.counter++
    return `${prefix}_${this.counter.toString().padStart(6, "0")}${randomBytes(4).toString("hex")}`
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      void this.handle(request, response)
    })
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve))
    return this
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections()
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve())
  }

  /** A signed webhook delivery of `object` as an event (what Stripe would POST). */
  event(type: string, object: Json, secret: string, id = this.id("evt")): { readonly payload: string; readonly signature: string; readonly id: string } {
    const payload = JSON.stringify({ id, object: "event", api_version: "2026-10-28.endive", created: now(), type, livemode: false, data: { object } })
    return { payload, signature: Stripe.webhooks.generateTestHeaderString({ payload, secret }), id }
  }

  /** What Stripe does itself: a subscription's status changes (dunning, cancellation). */
  setSubscription(id: string, patch: Json): Json {
    const subscription = { ...this.subscriptions.get(id)!, ...patch }
    this.subscriptions.set(id, subscription)
    return subscription
  }

  /** A renewal invoice for a subscription, open and attempted (a failed payment) or paid. */
  addInvoice(customer: string, subscription: string | null, status: "open" | "paid", amount = 2900): Json {
    const at = now()
    const invoice = this.invoiceOf(customer, subscription, "subscription_cycle", [
      this.line({ amount, description: "1 × plan (at the renewal)", subscription, item: null, proration: false, start: at, end: at + MONTH })
    ])
    const stored: Json = { ...invoice, status, amount_paid: status === "paid" ? invoice.amount_due : 0, attempted: true, status_transitions: { finalized_at: at, paid_at: status === "paid" ? at : null } }
    this.invoices.set(stored.id, stored)
    return stored
  }

  /** The unit amount of a price. */
  priceAmount(priceId: string): number {
    return this.prices.get(priceId) ?? DEFAULT_PRICES.find(([pattern]) => pattern.test(priceId))?.[1] ?? 0
  }

  private price(id: string): Json {
    return { id, object: "price", unit_amount: this.priceAmount(id), currency: "usd" }
  }

  /** An invoice line (API 2025-03-31 and later: the origin and the proration flag under `parent`). */
  /** @internal */
  line(input: { amount: number; description: string; subscription: string | null; item: string | null; invoiceItem?: string; proration: boolean; start: number; end: number; metadata?: Json; quantity?: number; price?: string }): Json {
    const details = { invoice_item: input.invoiceItem ?? null, proration: input.proration, proration_details: { credited_items: null }, subscription: input.subscription }
    return {
      id: this.id("il"),
      object: "line_item",
      amount: input.amount,
      currency: "usd",
      description: input.description,
      metadata: input.metadata ?? {},
      parent: input.item === null
        ? { type: "invoice_item_details", invoice_item_details: { ...details, invoice_item: input.invoiceItem ?? null }, subscription_item_details: null }
        : { type: "subscription_item_details", subscription_item_details: { ...details, subscription_item: input.item }, invoice_item_details: null },
      period: { start: input.start, end: input.end },
      pricing: input.price === undefined ? null : { type: "price_details", price_details: { price: input.price, product: `prod_${input.price}` }, unit_amount_decimal: String(this.priceAmount(input.price)) },
      quantity: input.quantity ?? 1
    }
  }

  /** The lines of the pending invoice items of a subscription (swept into its next invoice). */
  /** @internal */
  pendingLines(subscription: string): Array<Json> {
    return [...this.invoiceItems.values()].filter((item) => item.invoice === null && item.subscription === subscription).map((item) =>
      this.line({ amount: item.amount, description: item.description, subscription, item: null, invoiceItem: item.id, proration: item.proration, start: item.period.start, end: item.period.end, metadata: item.metadata })
    )
  }

  /** An invoice of `lines` (not stored): the customer's credit balance applied to what is due. */
  /** @internal */
  invoiceOf(customerId: string, subscription: string | null, reason: string, lines: Array<Json>, id = this.id("in")): Json {
    const customer = this.customer(customerId)
    const total = lines.reduce((sum, line) => sum + line.amount, 0)
    const credit = customer.balance < 0 && total > 0 ? Math.min(total, -customer.balance) : 0
    const at = now()
    return {
      id,
      object: "invoice",
      customer: customerId,
      status: "draft",
      billing_reason: reason,
      currency: "usd",
      subtotal: total,
      total,
      starting_balance: customer.balance,
      ending_balance: total < 0 ? customer.balance + total : customer.balance + credit,
      amount_due: Math.max(0, total - credit),
      amount_paid: 0,
      amount_remaining: Math.max(0, total - credit),
      attempted: false,
      created: at,
      period_start: at,
      period_end: at,
      status_transitions: { finalized_at: null, paid_at: null },
      parent: subscription === null ? null : { type: "subscription_details", subscription_details: { subscription, metadata: {} } },
      lines: { object: "list", url: `/v1/invoices/${id}/lines`, has_more: false, data: lines }
    }
  }

  /**
   * Finalize and collect an invoice on a payment method, and keep it: `paid`, or — declined —
   * `open` and attempted, unless `errorIfIncomplete` (then a 402 and nothing is kept).
   */
  private collect(invoice: Json, paymentMethod: string | null, errorIfIncomplete: boolean): Json {
    const at = now()
    const declined = invoice.amount_due > 0 && (paymentMethod === null || this.paymentMethod(paymentMethod)._card.decline !== undefined)
    if (declined && errorIfIncomplete) this.decline(paymentMethod!)
    const paid = !declined
    const kept: Json = {
      ...invoice,
      status: paid ? "paid" : "open",
      attempted: invoice.amount_due > 0,
      amount_paid: paid ? invoice.amount_due : 0,
      amount_remaining: paid ? 0 : invoice.amount_due,
      status_transitions: { finalized_at: at, paid_at: paid ? at : null }
    }
    this.customers.set(invoice.customer, { ...this.customer(invoice.customer), balance: invoice.ending_balance })
    for (const line of invoice.lines.data as Array<Json>) {
      const item = line.parent?.invoice_item_details?.invoice_item
      if (item !== undefined && item !== null && this.invoiceItems.has(item)) this.invoiceItems.set(item, { ...this.invoiceItems.get(item), invoice: invoice.id })
    }
    this.invoices.set(kept.id, kept)
    if (paid) this.money.recordPayment(kept)
    return kept
  }

  /** The proration lines of moving a subscription's items to new prices at `at` (seconds). */
  /** @internal */
  prorations(subscription: Json, changes: Array<Json>, at: number): Array<Json> {
    if (subscription.status === "trialing") return []
    const lines: Array<Json> = []
    for (const change of changes) {
      const item = (subscription.items.data as Array<Json>).find((entry) => entry.id === change.id)
      if (item === undefined || change.price === undefined || change.price === item.price.id) continue
      if (at < item.current_period_start || at > item.current_period_end) {
        throw new StripeFailure(400, { type: "invalid_request_error", param: "proration_date", message: "proration_date must be within the subscription's current period." })
      }
      const quantity = Number(change.quantity ?? item.quantity)
      const { charge, credit } = prorate({
        oldAmount: this.priceAmount(item.price.id) * item.quantity,
        newAmount: this.priceAmount(change.price) * quantity,
        periodStart: item.current_period_start,
        periodEnd: item.current_period_end,
        at
      })
      const after = new Date(at * 1000).toISOString().slice(0, 10)
      const period = { start: at, end: item.current_period_end }
      if (credit !== 0) lines.push(this.line({ amount: credit, description: `Unused time on ${item.price.id} after ${after}`, subscription: subscription.id, item: item.id, proration: true, ...period, price: item.price.id, quantity: item.quantity }))
      if (charge !== 0) lines.push(this.line({ amount: charge, description: `Remaining time on ${change.price} after ${after}`, subscription: subscription.id, item: item.id, proration: true, ...period, price: change.price, quantity }))
    }
    return lines
  }

  /**
   * What Stripe does at a period's end: the subscription moves to its next period and its renewal
   * invoice (each item's price for the new period, and the pending invoice items) is charged to the
   * default payment method — declined: `open`, attempted, and the subscription `past_due`.
   */
  renew(subscriptionId: string, options: { readonly draft?: boolean } = {}): { readonly subscription: Json; readonly invoice: Json } {
    const current = this.subscription(subscriptionId)
    const items = (current.items.data as Array<Json>).map((item): Json => ({ ...item, current_period_start: item.current_period_end, current_period_end: item.current_period_end + MONTH }))
    const lines = [
      ...items.map((item) =>
        this.line({ amount: this.priceAmount(item.price.id) * item.quantity, description: `${item.quantity} × ${item.price.id}`, subscription: subscriptionId, item: item.id, proration: false, start: item.current_period_start, end: item.current_period_end, price: item.price.id, quantity: item.quantity })
      ),
      ...this.pendingLines(subscriptionId)
    ]
    const draft = this.invoiceOf(current.customer, subscriptionId, "subscription_cycle", lines)
    if (options.draft === true) {
      // Stripe leaves a renewal a draft for about an hour before it finalizes and charges it.
      this.invoices.set(draft.id, draft)
      return { subscription: this.setSubscription(subscriptionId, { items: { ...current.items, data: items }, latest_invoice: draft.id }), invoice: draft }
    }
    const invoice = this.collect(draft, current.default_payment_method, false)
    const subscription = this.setSubscription(subscriptionId, {
      items: { ...current.items, data: items },
      latest_invoice: invoice.id,
      status: invoice.status === "paid" ? "active" : "past_due"
    })
    return { subscription, invoice }
  }

  /** What Stripe does an hour after a renewal: the draft (with the items added to it since) finalized and charged. */
  finalize(invoiceId: string): Json {
    const draft = this.invoices.get(invoiceId)!
    const subscriptionId = draft.parent?.subscription_details?.subscription as string
    const invoice = this.collect(draft, this.subscription(subscriptionId).default_payment_method, false)
    this.setSubscription(subscriptionId, { status: invoice.status === "paid" ? "active" : "past_due" })
    return invoice
  }

  /**
   * What Stripe does at the end of the period of a subscription set to cancel at period end: it
   * ends (`canceled`, `ended_at`), and no renewal invoice is made; its pending items stay pending.
   */
  endAtPeriodEnd(subscriptionId: string): Json {
    const current = this.subscription(subscriptionId)
    const end = Math.max(...(current.items.data as Array<Json>).map((item) => item.current_period_end))
    return this.setSubscription(subscriptionId, { status: "canceled", ended_at: end, canceled_at: current.canceled_at ?? now() })
  }

  /** A test card attached to the customer and made its default (what the hosted portal does). */
  addCard(customer: string, test: keyof typeof TEST_PAYMENT_METHODS = "pm_card_visa"): string {
    const id = this.id("pm")
    const card = TEST_PAYMENT_METHODS[test]!
    this.paymentMethods.set(id, { id, object: "payment_method", type: "card", customer, card: { brand: card.brand, last4: card.last4, exp_month: 12, exp_year: 2099 }, created: now(), _card: card })
    const current = this.customer(customer)
    this.customers.set(customer, { ...current, invoice_settings: { ...current.invoice_settings, default_payment_method: id } })
    return id
  }

  /** A card of the customer's that declines every charge (Stripe's `pm_card_chargeDeclined`, attached). */
  addDecliningCard(customer: string): string {
    const id = this.id("pm")
    const card = TEST_PAYMENT_METHODS.pm_card_chargeDeclined!
    this.paymentMethods.set(id, { id, object: "payment_method", type: "card", customer, card: { brand: card.brand, last4: card.last4, exp_month: 12, exp_year: 2099 }, created: now(), _card: card })
    return id
  }

  private async handle(request: IncomingMessage, response: ServerResponse) {
    const chunks: Array<Buffer> = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString("utf8")
    const url = new URL(request.url ?? "/", "http://stand-in")
    const method = request.method ?? "GET"
    const body = method === "GET" || (method === "DELETE" && text === "") ? parseForm(url.search.slice(1)) : parseForm(text)
    const idempotencyKey = request.headers["idempotency-key"] as string | undefined
    const authorization = request.headers.authorization
    this.requests.push({ method, path: url.pathname, body, idempotencyKey, authorization })
    const send = (status: number, payload: Json, headers: Record<string, string> = {}) => {
      const json = JSON.stringify(payload)
      response.writeHead(status, { "content-type": "application/json", "request-id": `req_${randomBytes(6).toString("hex")}`, ...headers })
      response.end(json)
      return json
    }
    if (authorization !== `Bearer ${this.secretKey}`) {
      send(401, { error: { type: "invalid_request_error", message: "Invalid API Key provided" } })
      return
    }
    const limited = [...this.rateLimits].find(([prefix, count]) => url.pathname.startsWith(prefix) && count > 0)
    if (limited !== undefined) {
      this.rateLimits.set(limited[0], limited[1] - 1)
      send(429, { error: { type: "invalid_request_error", code: "rate_limit", message: "Too many requests hit the API too quickly." } }, { "stripe-should-retry": "true" })
      return
    }
    const hash = createHash("sha256").update(`${method} ${url.pathname} ${text}`).digest("hex")
    if (method === "POST" && idempotencyKey !== undefined) {
      const seen = this.idempotent.get(idempotencyKey)
      if (seen !== undefined) {
        if (seen.hash !== hash) {
          send(400, { error: { type: "idempotency_error", message: "Keys for idempotent requests can only be used with the same parameters they were first used with." } })
        } else {
          response.writeHead(seen.status, { "content-type": "application/json", "idempotent-replayed": "true", "request-id": `req_${randomBytes(6).toString("hex")}` })
          response.end(seen.body)
        }
        return
      }
    }
    let status = 200
    let answer: Json
    try {
      answer = this.route(method, url.pathname, body)
    } catch (failure) {
      if (!(failure instanceof StripeFailure)) throw failure
      status = failure.status
      answer = { error: failure.error }
    }
    const json = send(status, answer)
    // Stripe keeps the answer of a request that ran (success or a 4xx from the API) under its key.
    if (method === "POST" && idempotencyKey !== undefined) this.idempotent.set(idempotencyKey, { hash, status, body: json })
  }

  /** @internal */
  customer(id: string): Json {
    const customer = this.customers.get(id)
    if (customer === undefined) throw missing("customer", id)
    return customer
  }

  /** @internal */
  paymentMethod(id: string): Json & { readonly _card: Card } {
    const method = this.paymentMethods.get(id)
    if (method === undefined) throw missing("PaymentMethod", id)
    return method
  }

  private publicMethod(method: Json): Json {
    const { _card, ...rest } = method
    return rest
  }

  /** @internal */
  subscription(id: string): Json {
    const subscription = this.subscriptions.get(id)
    if (subscription === undefined) throw missing("subscription", id)
    return subscription
  }

  /** @internal */
  decline(paymentMethodId: string) {
    const card = this.paymentMethod(paymentMethodId)._card
    if (card.decline !== undefined) {
      throw new StripeFailure(402, { type: "card_error", ...card.decline, param: "payment_method" })
    }
  }

  private route(method: string, path: string, body: Json): Json {
    const parts = path.split("/").filter((part) => part !== "")
    if (parts[0] !== "v1") throw new StripeFailure(404, { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}).` })
    const [, resource, id, action] = parts
    const key = `${method} ${resource}${id === undefined ? "" : "/:id"}${action === undefined ? "" : `/${action}`}`
    switch (key) {
      case "POST customers": {
        const customer = {
          id: this.id("cus"),
          object: "customer",
          email: body.email ?? null,
          name: body.name ?? null,
          metadata: body.metadata ?? {},
          balance: 0,
          currency: null,
          created: now(),
          invoice_settings: { default_payment_method: null }
        }
        this.customers.set(customer.id, customer)
        return customer
      }
      case "GET customers/:id":
        return this.customer(id!)
      case "POST customers/:id": {
        const current = this.customer(id!)
        const next = {
          ...current,
          ...(body.email === undefined ? {} : { email: body.email }),
          ...(body.name === undefined ? {} : { name: body.name }),
          ...(body.metadata === undefined ? {} : { metadata: { ...current.metadata, ...body.metadata } }),
          ...(body.invoice_settings?.default_payment_method === undefined
            ? {}
            : { invoice_settings: { default_payment_method: this.paymentMethod(body.invoice_settings.default_payment_method).id } })
        }
        this.customers.set(id!, next)
        return next
      }
      case "POST customers/:id/balance_transactions": {
        const customer = this.customer(id!)
        const amount = Number(body.amount)
        if (!Number.isInteger(amount)) throw new StripeFailure(400, { type: "invalid_request_error", param: "amount", message: "Invalid integer: amount" })
        const ending = customer.balance + amount
        this.customers.set(id!, { ...customer, balance: ending, currency: body.currency })
        const transaction = {
          id: this.id("cbtxn"),
          object: "customer_balance_transaction",
          amount,
          currency: body.currency,
          customer: id,
          description: body.description ?? null,
          ending_balance: ending,
          type: "adjustment",
          created: now()
        }
        this.balanceTransactions.set(transaction.id, transaction)
        return transaction
      }
      case "POST payment_methods/:id/attach": {
        const customer = this.customer(body.customer)
        const test = TEST_PAYMENT_METHODS[id!]
        if (test !== undefined) {
          const created = {
            id: this.id("pm"),
            object: "payment_method",
            type: "card",
            customer: customer.id,
            card: { brand: test.brand, last4: test.last4, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3 },
            created: now(),
            _card: test
          }
          this.paymentMethods.set(created.id, created)
          return this.publicMethod(created)
        }
        const found = this.paymentMethod(id!)
        const attached = { ...found, customer: customer.id }
        this.paymentMethods.set(found.id, attached)
        return this.publicMethod(attached)
      }
      case "GET payment_methods": {
        const data = [...this.paymentMethods.values()].filter((pm) => pm.customer === body.customer).map((pm) => this.publicMethod(pm))
        return { object: "list", url: "/v1/payment_methods", has_more: false, data }
      }
      case "POST setup_intents": {
        this.customer(body.customer)
        const intentId = this.id("seti")
        return { id: intentId, object: "setup_intent", customer: body.customer, client_secret: `${intentId}_secret_${randomBytes(8).toString("hex")}`, status: "requires_payment_method", usage: body.usage }
      }
      case "POST payment_intents": {
        this.customer(body.customer)
        this.decline(body.payment_method)
        const intent = {
          id: this.id("pi"),
          object: "payment_intent",
          amount: Number(body.amount),
          currency: body.currency,
          customer: body.customer,
          payment_method: body.payment_method,
          status: "succeeded",
          metadata: body.metadata ?? {},
          created: now()
        }
        this.paymentIntents.set(intent.id, intent)
        return intent
      }
      case "POST subscriptions": {
        const customer = this.customer(body.customer)
        const paymentMethod = body.default_payment_method ?? customer.invoice_settings.default_payment_method
        if (paymentMethod === null || paymentMethod === undefined) {
          throw new StripeFailure(400, { type: "invalid_request_error", message: "This customer has no attached payment source or default payment method." })
        }
        const start = now()
        const subscriptionId = this.id("sub")
        const items = (body.items as Array<Json>).map((item) => ({
          id: this.id("si"),
          object: "subscription_item",
          price: this.price(item.price),
          quantity: Number(item.quantity ?? 1),
          current_period_start: start,
          current_period_end: start + MONTH
        }))
        const lines = [
          ...items.map((item) =>
            this.line({ amount: item.price.unit_amount * item.quantity, description: `${item.quantity} × ${item.price.id}`, subscription: subscriptionId, item: item.id, proration: false, start, end: start + MONTH, price: item.price.id, quantity: item.quantity })
          ),
          ...this.pendingLines(subscriptionId)
        ]
        // The first invoice is charged now; `error_if_incomplete`: a decline is a 402 and nothing is kept.
        const invoice = this.collect(this.invoiceOf(customer.id, subscriptionId, "subscription_create", lines), paymentMethod, body.payment_behavior === "error_if_incomplete")
        const subscription = {
          id: subscriptionId,
          object: "subscription",
          customer: customer.id,
          status: invoice.status === "paid" ? "active" : "incomplete",
          cancel_at_period_end: false,
          canceled_at: null,
          created: start,
          default_payment_method: paymentMethod,
          latest_invoice: invoice.id,
          metadata: body.metadata ?? {},
          items: { object: "list", data: items, has_more: false }
        }
        this.subscriptions.set(subscriptionId, subscription)
        return subscription
      }
      case "GET subscriptions/:id":
        return this.subscription(id!)
      case "GET subscriptions": {
        const data = [...this.subscriptions.values()].filter((sub) => sub.customer === body.customer && (body.status === "all" || sub.status !== "canceled"))
        return { object: "list", url: "/v1/subscriptions", has_more: false, data }
      }
      case "POST subscriptions/:id": {
        const current = this.subscription(id!)
        if (current.status === "canceled") {
          throw new StripeFailure(400, { type: "invalid_request_error", message: "A canceled subscription can only update its cancellation_details and metadata." })
        }
        const changes = (body.items as Array<Json> | undefined) ?? []
        const items = body.items === undefined ? current.items : {
          ...current.items,
          data: current.items.data.map((item: Json) => {
            const change = changes.find((entry) => entry.id === item.id)
            return change === undefined ? item : {
              ...item,
              ...(change.price === undefined ? {} : { price: this.price(change.price) }),
              ...(change.quantity === undefined ? {} : { quantity: Number(change.quantity) })
            }
          })
        }
        // Prorations at `proration_date` (default now), with the preview's function: `always_invoice`
        // invoices and charges them now, `create_prorations` leaves them pending, `none` makes none.
        const behaviour = body.proration_behavior ?? "create_prorations"
        const at = body.proration_date === undefined ? now() : Number(body.proration_date)
        const prorations = behaviour === "none" ? [] : this.prorations(current, changes, at)
        let latest = current.latest_invoice ?? null
        if (behaviour === "always_invoice" && prorations.length > 0) {
          const invoice = this.invoiceOf(current.customer, id!, "subscription_update", [...prorations, ...this.pendingLines(id!)])
          latest = this.collect(invoice, current.default_payment_method, body.payment_behavior === "error_if_incomplete").id
        } else if (behaviour === "create_prorations") {
          for (const line of prorations) {
            const itemId = this.id("ii")
            this.invoiceItems.set(itemId, { id: itemId, object: "invoiceitem", customer: current.customer, subscription: id, amount: line.amount, currency: "usd", description: line.description, invoice: null, proration: true, metadata: {}, period: line.period })
          }
        }
        return this.setSubscription(id!, {
          items,
          latest_invoice: latest,
          ...(body.cancel_at_period_end === undefined ? {} : { cancel_at_period_end: body.cancel_at_period_end === "true" }),
          ...(body.default_payment_method === undefined ? {} : { default_payment_method: this.paymentMethod(body.default_payment_method).id })
        })
      }
      case "DELETE subscriptions/:id": {
        const current = this.subscription(id!)
        if (current.status === "canceled") throw new StripeFailure(400, { type: "invalid_request_error", message: "This subscription has already been canceled." })
        const at = now()
        // `prorate=true`: the unused time of each item credited, as a pending proration item the
        // customer's next (or a one-off) invoice takes.
        if (body.prorate === "true" && current.status !== "trialing") {
          for (const item of current.items.data as Array<Json>) {
            const { credit } = prorate({ oldAmount: this.priceAmount(item.price.id) * item.quantity, newAmount: 0, periodStart: item.current_period_start, periodEnd: item.current_period_end, at })
            if (credit === 0) continue
            const itemId = this.id("ii")
            this.invoiceItems.set(itemId, {
              id: itemId,
              object: "invoiceitem",
              customer: current.customer,
              subscription: id,
              amount: credit,
              currency: "usd",
              description: `Unused time on ${item.price.id} after ${new Date(at * 1000).toISOString().slice(0, 10)}`,
              invoice: null,
              proration: true,
              metadata: {},
              period: { start: at, end: item.current_period_end }
            })
          }
        }
        return this.setSubscription(id!, { status: "canceled", canceled_at: at, ended_at: at, cancel_at_period_end: false })
      }
      case "POST billing_portal/:id": {
        // `/v1/billing_portal/sessions`
        if (id !== "sessions") throw new StripeFailure(404, { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}).` })
        this.customer(body.customer)
        const sessionId = this.id("bps")
        return { id: sessionId, object: "billing_portal.session", customer: body.customer, return_url: body.return_url, url: `https://billing.stripe.com/p/session/${sessionId}`, created: now() }
      }
      default: {
        const answer = invoiceRoute(this, { method, path, key, id, body }) ?? this.money.route(key, id, body)
        if (answer !== undefined) return answer
        throw new StripeFailure(404, { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}).` })
      }
    }
  }
}
