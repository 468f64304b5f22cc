import { type Json, missing, now, StripeFailure } from "./StripeStandInShapes.js"

/** What the money module reads and writes of the stand-in. */
export interface StandInCore {
  readonly invoices: Map<string, Json>
  readonly invoiceItems: Map<string, Json>
  id(prefix: string): string
}

const invalid = (message: string, param?: string) => new StripeFailure(400, { type: "invalid_request_error", message, ...(param === undefined ? {} : { param }) })

/**
 * The stand-in's money after an invoice is paid, in Stripe's documented shapes (API 2025-03-31 and
 * later): each paid invoice's payment (a `payment_intent`, its `charge` and the `invoice_payment`
 * linking them), refunds (`POST /v1/refunds` on a charge or payment intent; statuses `pending`,
 * `succeeded`, `failed`, `canceled`), credit notes (`POST /v1/credit_notes`: `pre_payment` on an open
 * invoice lowers what is due, `post_payment` on a paid one credits the balance or refunds;
 * `void`), pending invoice items listed, and `mark_uncollectible`.
 */
export class StripeMoney {
  readonly charges = new Map<string, Json>()
  readonly refunds = new Map<string, Json>()
  readonly creditNotes = new Map<string, Json>()
  readonly invoicePayments = new Map<string, Json>()
  /** The payment intents Stripe made to pay invoices (billing's own charges are the stand-in's `paymentIntents`). */
  readonly invoiceIntents = new Map<string, Json>()

  constructor(private readonly core: StandInCore) {}

  /** An invoice was paid: its payment intent, charge and invoice payment, as Stripe records them. */
  recordPayment(invoice: Json): void {
    if (invoice.amount_paid <= 0 || [...this.invoicePayments.values()].some((payment) => payment.invoice === invoice.id)) return
    const at = now()
    const intent = { id: this.core.id("pi"), object: "payment_intent", amount: invoice.amount_paid, currency: invoice.currency, customer: invoice.customer, status: "succeeded", latest_charge: null as string | null, metadata: {}, created: at }
    const charge = {
      id: this.core.id("ch"),
      object: "charge",
      amount: invoice.amount_paid,
      amount_captured: invoice.amount_paid,
      amount_refunded: 0,
      captured: true,
      currency: invoice.currency,
      customer: invoice.customer,
      paid: true,
      payment_intent: intent.id,
      refunded: false,
      status: "succeeded",
      created: at
    }
    intent.latest_charge = charge.id
    this.invoiceIntents.set(intent.id, intent)
    this.charges.set(charge.id, charge)
    const payment = {
      id: this.core.id("inpay"),
      object: "invoice_payment",
      amount_paid: invoice.amount_paid,
      amount_requested: invoice.amount_paid,
      created: at,
      currency: invoice.currency,
      invoice: invoice.id,
      is_default: true,
      livemode: false,
      payment: { type: "payment_intent", payment_intent: intent.id },
      status: "paid",
      status_transitions: { canceled_at: null, paid_at: at }
    }
    this.invoicePayments.set(payment.id, payment)
  }

  /** The charge of a paid invoice (what a refund is made on). */
  chargeOf(invoiceId: string): Json {
    const payment = [...this.invoicePayments.values()].find((entry) => entry.invoice === invoiceId)
    if (payment === undefined) throw new Error(`invoice ${invoiceId} has no payment`)
    return [...this.charges.values()].find((charge) => charge.payment_intent === payment.payment.payment_intent)!
  }

  /** A refund of part or all of a charge; `status` as Stripe may report it. */
  refund(input: { readonly charge?: string; readonly payment_intent?: string; readonly amount?: string | number; readonly reason?: string; readonly metadata?: Json }, status = "succeeded"): Json {
    const charge = input.charge !== undefined
      ? this.charges.get(input.charge)
      : [...this.charges.values()].find((entry) => entry.payment_intent === input.payment_intent)
    if (charge === undefined) throw missing("charge", input.charge ?? input.payment_intent ?? "")
    const left = charge.amount - charge.amount_refunded
    const amount = input.amount === undefined ? left : Number(input.amount)
    if (!Number.isInteger(amount) || amount <= 0) throw invalid("Invalid positive integer", "amount")
    if (amount > left) throw invalid(`Refund amount ($${(amount / 100).toFixed(2)}) is greater than unrefunded amount on charge ($${(left / 100).toFixed(2)})`, "amount")
    const refund = {
      id: this.core.id("re"),
      object: "refund",
      amount,
      charge: charge.id,
      created: now(),
      currency: charge.currency,
      metadata: input.metadata ?? {},
      payment_intent: charge.payment_intent,
      reason: input.reason ?? null,
      status,
      failure_reason: null
    }
    this.refunds.set(refund.id, refund)
    this.recount(charge.id)
    return refund
  }

  /** What Stripe does to a refund later (a pending one succeeding, or failing). */
  setRefund(id: string, patch: Json): Json {
    const refund = { ...this.refunds.get(id)!, ...patch }
    this.refunds.set(id, refund)
    this.recount(refund.charge)
    return refund
  }

  /** A charge's `amount_refunded` and `refunded`: its refunds that have not failed or been canceled. */
  private recount(chargeId: string) {
    const charge = this.charges.get(chargeId)!
    const refunded = [...this.refunds.values()].filter((refund) => refund.charge === chargeId && (refund.status === "succeeded" || refund.status === "pending"))
      .reduce((sum, refund) => sum + refund.amount, 0)
    this.charges.set(chargeId, { ...charge, amount_refunded: refunded, refunded: refunded === charge.amount })
  }

  /** A credit note on an invoice (`POST /v1/credit_notes` with `amount`, and `refund_amount` / `credit_amount` / `out_of_band_amount` on a paid one). */
  creditNote(body: Json): Json {
    const invoice = this.core.invoices.get(body.invoice)
    if (invoice === undefined) throw missing("invoice", body.invoice)
    if (invoice.status !== "open" && invoice.status !== "paid") throw invalid("Credit notes can only be created on open or paid invoices.", "invoice")
    const amount = Number(body.amount)
    const credited = [...this.creditNotes.values()].filter((note) => note.invoice === invoice.id && note.status === "issued").reduce((sum, note) => sum + note.amount, 0)
    if (!Number.isInteger(amount) || amount <= 0 || amount > invoice.total - credited) throw invalid("The credit note amount must be positive and at most the invoice's remaining total.", "amount")
    const prePayment = invoice.status === "open"
    const refundAmount = prePayment ? 0 : Number(body.refund_amount ?? 0)
    const refunds = refundAmount > 0 ? [{ amount_refunded: refundAmount, refund: this.refund({ charge: this.chargeOf(invoice.id).id, amount: refundAmount, reason: body.reason }).id, type: "refund" }] : []
    const count = [...this.creditNotes.values()].filter((note) => note.invoice === invoice.id).length + 1
    const note = {
      id: this.core.id("cn"),
      object: "credit_note",
      amount,
      created: now(),
      currency: invoice.currency,
      customer: invoice.customer,
      invoice: invoice.id,
      memo: body.memo ?? null,
      metadata: body.metadata ?? {},
      number: `${invoice.id.toUpperCase().slice(3, 11)}-CN-${String(count).padStart(2, "0")}`,
      out_of_band_amount: body.out_of_band_amount === undefined ? null : Number(body.out_of_band_amount),
      pre_payment_amount: prePayment ? amount : 0,
      post_payment_amount: prePayment ? 0 : amount,
      reason: body.reason ?? null,
      refunds,
      status: "issued",
      subtotal: amount,
      total: amount,
      type: prePayment ? "pre_payment" : "post_payment",
      voided_at: null
    }
    this.creditNotes.set(note.id, note)
    this.applyNotes(invoice.id)
    return note
  }

  /** `POST /v1/credit_notes/:id/void`: only an issued one. */
  voidCreditNote(id: string): Json {
    const note = this.creditNotes.get(id)
    if (note === undefined) throw missing("credit_note", id)
    if (note.status === "void") throw invalid("This credit note is already voided.")
    const voided = { ...note, status: "void", voided_at: now() }
    this.creditNotes.set(id, voided)
    this.applyNotes(note.invoice)
    return voided
  }

  /** An invoice's credit-note totals and, for an open one, what is left due (nothing left: `paid`). */
  private applyNotes(invoiceId: string) {
    const invoice = this.core.invoices.get(invoiceId)!
    const issued = [...this.creditNotes.values()].filter((note) => note.invoice === invoiceId && note.status === "issued")
    const pre = issued.reduce((sum, note) => sum + note.pre_payment_amount, 0)
    const post = issued.reduce((sum, note) => sum + note.post_payment_amount, 0)
    const next: Json = { ...invoice, pre_payment_credit_notes_amount: pre, post_payment_credit_notes_amount: post }
    if (invoice.status === "open") {
      const remaining = Math.max(0, invoice.amount_due - invoice.amount_paid - pre)
      Object.assign(next, { amount_remaining: remaining }, remaining === 0 ? { status: "paid", status_transitions: { ...invoice.status_transitions, paid_at: now() } } : {})
    }
    this.core.invoices.set(invoiceId, next)
  }

  /** The routes of this module, by `METHOD resource[/:id][/action]`; `undefined`: not one of them. */
  route(key: string, id: string | undefined, body: Json): Json | undefined {
    const list = (url: string, data: Array<Json>) => ({ object: "list", url, has_more: false, data })
    switch (key) {
      case "GET invoiceitems":
        return list("/v1/invoiceitems", [...this.core.invoiceItems.values()].filter((item) =>
          (body.customer === undefined || item.customer === body.customer) && (body.pending === undefined || (item.invoice === null) === (body.pending === "true"))))
      case "POST invoices/:id/mark_uncollectible": {
        const invoice = this.core.invoices.get(id!)
        if (invoice === undefined) throw missing("invoice", id!)
        if (invoice.status !== "open") throw invalid("You can only mark an open invoice as uncollectible.")
        const marked = { ...invoice, status: "uncollectible", status_transitions: { ...invoice.status_transitions, marked_uncollectible_at: now() } }
        this.core.invoices.set(id!, marked)
        return marked
      }
      case "GET charges/:id": {
        const charge = this.charges.get(id!)
        if (charge === undefined) throw missing("charge", id!)
        return charge
      }
      case "GET invoice_payments":
        return list("/v1/invoice_payments", [...this.invoicePayments.values()].filter((payment) =>
          (body.invoice === undefined || payment.invoice === body.invoice) &&
          (body.payment?.payment_intent === undefined || payment.payment.payment_intent === body.payment.payment_intent)))
      case "POST refunds":
        return this.refund(body)
      case "GET refunds/:id": {
        const refund = this.refunds.get(id!)
        if (refund === undefined) throw missing("refund", id!)
        return refund
      }
      case "GET refunds":
        return list("/v1/refunds", [...this.refunds.values()].filter((refund) =>
          (body.charge === undefined || refund.charge === body.charge) && (body.payment_intent === undefined || refund.payment_intent === body.payment_intent)))
      case "POST credit_notes":
        return this.creditNote(body)
      case "GET credit_notes/:id": {
        const note = this.creditNotes.get(id!)
        if (note === undefined) throw missing("credit_note", id!)
        return note
      }
      case "GET credit_notes":
        return list("/v1/credit_notes", [...this.creditNotes.values()].filter((note) => body.invoice === undefined || note.invoice === body.invoice))
      case "POST credit_notes/:id/void":
        return this.voidCreditNote(id!)
      default:
        return undefined
    }
  }
}
