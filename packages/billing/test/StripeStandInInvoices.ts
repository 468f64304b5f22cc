import { randomBytes } from "node:crypto"
import type { StripeStandIn } from "./StripeStandIn.js"
import { type Json, missing, MONTH, now, StripeFailure } from "./StripeStandInShapes.js"

/**
 * The stand-in's invoice routes (split from `StripeStandIn.ts`): invoices read and listed, previews
 * (`create_preview`: a subscription change's prorations, or a new subscription's first invoice),
 * one-off invoices of pending items, finalize, pay (an `open` or `uncollectible` one), and invoice
 * items (pending, or added to a draft). `undefined`: not one of them.
 */
export const invoiceRoute = (s: StripeStandIn, request: { readonly method: string; readonly path: string; readonly key: string; readonly id: string | undefined; readonly body: Json }): Json | undefined => {
  const { method, path, key, id, body } = request
  switch (key) {
    case "GET invoices/:id": {
      const invoice = s.invoices.get(id!)
      if (invoice === undefined) throw missing("invoice", id!)
      return invoice
    }
    case "GET invoices/:id/lines": {
      const invoice = s.invoices.get(id!)
      if (invoice === undefined) throw missing("invoice", id!)
      return { object: "list", url: `/v1/invoices/${id}/lines`, has_more: false, data: invoice.lines.data }
    }
    case "GET invoices": {
      const data = [...s.invoices.values()].filter((invoice) =>
        (body.customer === undefined || invoice.customer === body.customer) &&
        (body.subscription === undefined || invoice.parent?.subscription_details?.subscription === body.subscription) &&
        (body.status === undefined || invoice.status === body.status)
      )
      return { object: "list", url: "/v1/invoices", has_more: false, data }
    }
    case "POST invoices/:id": {
      if (id !== "create_preview") throw new StripeFailure(404, { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}).` })
      // The invoice a subscription change would make (`always_invoice`: the prorations and the
      // pending items, now), computed as the update computes it; nothing is kept.
      const details = body.subscription_details ?? {}
      if (body.subscription === undefined) {
        // A new subscription's first invoice (`customer` and `subscription_details[items]`): each
        // item's price for a period from now, as `POST /v1/subscriptions` invoices it.
        const customer = s.customer(body.customer)
        const start = now()
        const lines = ((details.items as Array<Json> | undefined) ?? []).map((item) => {
          const quantity = Number(item.quantity ?? 1)
          return s.line({ amount: s.priceAmount(item.price) * quantity, description: `${quantity} × ${item.price}`, subscription: null, item: s.id("si"), proration: false, start, end: start + MONTH, price: item.price, quantity })
        })
        return s.invoiceOf(customer.id, null, "subscription_create", lines, `upcoming_in_${randomBytes(8).toString("hex")}`)
      }
      const subscription = s.subscription(body.subscription)
      const at = details.proration_date === undefined ? now() : Number(details.proration_date)
      const prorations = details.proration_behavior === "none" ? [] : s.prorations(subscription, (details.items as Array<Json> | undefined) ?? [], at)
      return s.invoiceOf(subscription.customer, subscription.id, "subscription_update", [...prorations, ...s.pendingLines(subscription.id)], `upcoming_in_${randomBytes(8).toString("hex")}`)
    }
    case "POST invoices": {
      // A one-off invoice (`billing_reason: manual`): with `pending_invoice_items_behavior=include`
      // the customer's pending items (only the subscription's when `subscription` is given) move onto it.
      const customer = s.customer(body.customer)
      const invoiceId = s.id("in")
      const taken = body.pending_invoice_items_behavior === "include"
        ? [...s.invoiceItems.values()].filter((item) => item.invoice === null && item.customer === customer.id && (body.subscription === undefined || item.subscription === body.subscription))
        : []
      for (const item of taken) s.invoiceItems.set(item.id, { ...item, invoice: invoiceId })
      const lines = taken.map((item) =>
        s.line({ amount: item.amount, description: item.description, subscription: item.subscription, item: null, invoiceItem: item.id, proration: item.proration, start: item.period.start, end: item.period.end, metadata: item.metadata })
      )
      const draft = { ...s.invoiceOf(customer.id, body.subscription ?? null, "manual", lines, invoiceId), description: body.description ?? null, metadata: body.metadata ?? {}, auto_advance: body.auto_advance === "true", collection_method: body.collection_method ?? "charge_automatically" }
      s.invoices.set(invoiceId, draft)
      return draft
    }
    case "POST invoices/:id/finalize": {
      const draft = s.invoices.get(id!)
      if (draft === undefined) throw missing("invoice", id!)
      if (draft.status !== "draft") throw new StripeFailure(400, { type: "invalid_request_error", code: "invoice_not_editable", message: "This invoice is already finalized, you can't re-finalize a non-draft invoice." })
      // Finalizing applies the customer's credit; nothing due: `paid` at once.
      const at = now()
      s.customers.set(draft.customer, { ...s.customer(draft.customer), balance: draft.ending_balance })
      const finalized = { ...draft, status: draft.amount_due === 0 ? "paid" : "open", status_transitions: { finalized_at: at, paid_at: draft.amount_due === 0 ? at : null } }
      s.invoices.set(id!, finalized)
      return finalized
    }
    case "POST invoices/:id/pay": {
      const open = s.invoices.get(id!)
      if (open === undefined) throw missing("invoice", id!)
      // Stripe pays an `open` invoice, and an `uncollectible` one too (it then becomes `paid`).
      if (open.status !== "open" && open.status !== "uncollectible") throw new StripeFailure(400, { type: "invalid_request_error", code: "invoice_not_open", message: "Invoice is already paid." })
      // The invoice's or the customer's default payment method; a decline leaves it open and attempted (402).
      const paymentMethod = body.payment_method ?? open.default_payment_method ?? s.customer(open.customer).invoice_settings.default_payment_method
      s.invoices.set(id!, { ...open, attempted: true })
      if (paymentMethod === null || paymentMethod === undefined) {
        throw new StripeFailure(400, { type: "invalid_request_error", message: "This customer has no attached payment source or default payment method." })
      }
      s.decline(paymentMethod)
      const paid = { ...open, status: "paid", attempted: true, amount_paid: open.amount_due, amount_remaining: 0, status_transitions: { ...open.status_transitions, paid_at: now() } }
      s.invoices.set(id!, paid)
      s.money.recordPayment(paid)
      return paid
    }
    case "POST invoiceitems": {
      const customer = s.customer(body.customer)
      const amount = Number(body.amount)
      if (!Number.isInteger(amount)) throw new StripeFailure(400, { type: "invalid_request_error", param: "amount", message: "Invalid integer: amount" })
      if (body.subscription !== undefined) s.subscription(body.subscription)
      const itemId = s.id("ii")
      const start = body.period?.start === undefined ? now() : Number(body.period.start)
      const item = {
        id: itemId,
        object: "invoiceitem",
        customer: customer.id,
        subscription: body.subscription ?? null,
        amount,
        currency: body.currency,
        description: body.description ?? null,
        invoice: null as string | null,
        proration: false,
        metadata: body.metadata ?? {},
        period: { start, end: body.period?.end === undefined ? start : Number(body.period.end) }
      }
      if (body.invoice !== undefined) {
        const draft = s.invoices.get(body.invoice)
        if (draft === undefined) throw missing("invoice", body.invoice)
        if (draft.status !== "draft") throw new StripeFailure(400, { type: "invalid_request_error", param: "invoice", message: "You can only add invoice items to draft invoices." })
        item.invoice = draft.id
        const lines = [...draft.lines.data, s.line({ amount, description: item.description ?? "", subscription: item.subscription, item: null, invoiceItem: itemId, proration: false, ...item.period, metadata: item.metadata })]
        s.invoices.set(draft.id, s.invoiceOf(draft.customer, item.subscription, draft.billing_reason, lines, draft.id))
      }
      s.invoiceItems.set(itemId, item)
      return item
    }
    default:
      return undefined
  }
}
