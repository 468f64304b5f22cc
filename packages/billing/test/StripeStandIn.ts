import { createHash, randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import Stripe from "stripe"

/**
 * A local HTTP server standing in for Stripe's API (decision 0444), answering the documented request
 * and response shapes the billing adapter uses: form-encoded bodies (`items[0][price]=…`), bearer
 * secret keys, `Idempotency-Key` (the same key and body replay the first answer with
 * `Idempotent-Replayed: true`; another body is a 400 `idempotency_error`), errors as
 * `{ error: { type, code, message, decline_code, param } }`, 402 `card_error` for Stripe's declining
 * test cards, 404 `resource_missing`, and 429 with `Stripe-Should-Retry: true` when told to.
 */

type Json = Record<string, any>

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

class StripeFailure {
  constructor(readonly status: number, readonly error: Json, readonly headers: Record<string, string> = {}) {}
}

const missing = (kind: string, id: string) =>
  new StripeFailure(404, { type: "invalid_request_error", code: "resource_missing", param: "id", message: `No such ${kind}: '${id}'` })

/** Parse a form body with Stripe's bracket keys (`metadata[a]=1`, `items[0][price]=p`) into nested values. */
export const parseForm = (text: string): Json => {
  const root: Json = {}
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const parts = rawKey.split(/\[|\]\[|\]/).filter((part) => part !== "")
    let node: any = root
    parts.forEach((part, index) => {
      const last = index === parts.length - 1
      const nextIsIndex = !last && /^\d+$/.test(parts[index + 1]!)
      if (last) node[part] = value
      else node = node[part] ??= nextIsIndex ? [] : {}
    })
  }
  return root
}

const now = () => Math.floor(Date.now() / 1000)
const MONTH = 30 * 86_400

export class StripeStandIn {
  readonly customers = new Map<string, Json>()
  readonly paymentMethods = new Map<string, Json & { readonly _card: Card }>()
  readonly subscriptions = new Map<string, Json>()
  readonly invoices = new Map<string, Json>()
  readonly paymentIntents = new Map<string, Json>()
  readonly balanceTransactions = new Map<string, Json>()
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
    const invoice = {
      id: this.id("in"),
      object: "invoice",
      customer,
      status,
      amount_due: amount,
      amount_paid: status === "paid" ? amount : 0,
      attempted: true,
      created: now(),
      currency: "usd",
      parent: subscription === null ? null : { type: "subscription_details", subscription_details: { subscription, metadata: {} } }
    }
    this.invoices.set(invoice.id, invoice)
    return invoice
  }

  private async handle(request: IncomingMessage, response: ServerResponse) {
    const chunks: Array<Buffer> = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString("utf8")
    const url = new URL(request.url ?? "/", "http://stand-in")
    const method = request.method ?? "GET"
    const body = method === "GET" || method === "DELETE" ? Object.fromEntries(url.searchParams) : parseForm(text)
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

  private customer(id: string): Json {
    const customer = this.customers.get(id)
    if (customer === undefined) throw missing("customer", id)
    return customer
  }

  private paymentMethod(id: string): Json & { readonly _card: Card } {
    const method = this.paymentMethods.get(id)
    if (method === undefined) throw missing("PaymentMethod", id)
    return method
  }

  private publicMethod(method: Json): Json {
    const { _card, ...rest } = method
    return rest
  }

  private subscription(id: string): Json {
    const subscription = this.subscriptions.get(id)
    if (subscription === undefined) throw missing("subscription", id)
    return subscription
  }

  private decline(paymentMethodId: string) {
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
        if (body.payment_behavior === "error_if_incomplete") this.decline(paymentMethod)
        const start = now()
        const subscriptionId = this.id("sub")
        const items = (body.items as Array<Json>).map((item) => ({
          id: this.id("si"),
          object: "subscription_item",
          price: { id: item.price, object: "price" },
          quantity: Number(item.quantity ?? 1),
          current_period_start: start,
          current_period_end: start + MONTH
        }))
        const subscription = {
          id: subscriptionId,
          object: "subscription",
          customer: customer.id,
          status: "active",
          cancel_at_period_end: false,
          canceled_at: null,
          created: start,
          default_payment_method: paymentMethod,
          metadata: body.metadata ?? {},
          items: { object: "list", data: items, has_more: false }
        }
        this.subscriptions.set(subscriptionId, subscription)
        this.addInvoice(customer.id, subscriptionId, "paid")
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
        const items = body.items === undefined ? current.items : {
          ...current.items,
          data: current.items.data.map((item: Json) => {
            const change = (body.items as Array<Json>).find((entry) => entry.id === item.id)
            return change === undefined ? item : {
              ...item,
              ...(change.price === undefined ? {} : { price: { id: change.price, object: "price" } }),
              ...(change.quantity === undefined ? {} : { quantity: Number(change.quantity) })
            }
          })
        }
        return this.setSubscription(id!, {
          items,
          ...(body.cancel_at_period_end === undefined ? {} : { cancel_at_period_end: body.cancel_at_period_end === "true" }),
          ...(body.default_payment_method === undefined ? {} : { default_payment_method: this.paymentMethod(body.default_payment_method).id })
        })
      }
      case "DELETE subscriptions/:id": {
        this.subscription(id!)
        return this.setSubscription(id!, { status: "canceled", canceled_at: now(), cancel_at_period_end: false })
      }
      case "GET invoices/:id": {
        const invoice = this.invoices.get(id!)
        if (invoice === undefined) throw missing("invoice", id!)
        return invoice
      }
      case "GET invoices": {
        const data = [...this.invoices.values()].filter((invoice) => invoice.customer === body.customer && (body.status === undefined || invoice.status === body.status))
        return { object: "list", url: "/v1/invoices", has_more: false, data }
      }
      case "POST billing_portal/:id": {
        // `/v1/billing_portal/sessions`
        if (id !== "sessions") throw new StripeFailure(404, { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}).` })
        this.customer(body.customer)
        const sessionId = this.id("bps")
        return { id: sessionId, object: "billing_portal.session", customer: body.customer, return_url: body.return_url, url: `https://billing.stripe.com/p/session/${sessionId}`, created: now() }
      }
      default:
        throw new StripeFailure(404, { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}).` })
    }
  }
}
