import type { Billing } from "@core/contracts"
import { Cursor, EventOutbox, Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { billingId } from "./internal/ids.js"
import { mirroredLines, totalOf } from "./InvoiceLines.js"
import type { InvoiceAdjustments, ProviderInvoice } from "./ports/PaymentProvider.js"

/** A new invoice: its lines make its total (decision 0435). */
export interface NewInvoice {
  readonly platformId: string | null
  readonly customerId: string
  /** Set for a period-end invoice (one per subscription and period). */
  readonly subscriptionId: string | null
  /**
   * `period`: the period-end invoice (one per subscription and period); `final`: the last, partial
   * period of one cancelled at once (one per subscription and period; decision 0585); `proration`,
   * `upgrade`, `manual` (operator).
   */
  readonly kind: "period" | "final" | "proration" | "upgrade" | "manual"
  readonly currency: string
  readonly description: string | null
  readonly periodStart: Date
  readonly periodEnd: Date
  readonly lines: ReadonlyArray<Billing.InvoiceLine>
}

/** Billing's kind of a Stripe invoice, by its `billing_reason`. */
const kindOfReason = (reason: string | null): NewInvoice["kind"] =>
  reason === "subscription_create" ? "upgrade" : reason === "subscription_cycle" ? "period" : reason === "subscription_update" ? "proration" : "manual"

const DESCRIPTIONS: Readonly<Record<NewInvoice["kind"], string>> = {
  upgrade: "First invoice of the subscription at Stripe",
  final: "Final invoice at Stripe",
  period: "Renewal at Stripe",
  proration: "Change of tier at Stripe",
  manual: "Invoice at Stripe"
}

/** Stripe's statuses in the order an invoice moves through them: a stale re-read never moves one back. */
const rankOf = (column: string) => `CASE ${column} WHEN 'draft' THEN 0 WHEN 'open' THEN 1 WHEN 'uncollectible' THEN 2 ELSE 3 END`

const toLine = (row: any): Billing.InvoiceLine => ({
  kind: row.kind,
  description: row.description,
  meter: row.meter ?? null,
  quantity: Number(row.quantity),
  unitAmountMinor: Number(row.unit_amount_minor),
  amountMinor: Number(row.amount_minor)
})

/** What an invoice carries beside its lines: its refunds, credit notes and collection. */
interface Extras {
  readonly refunds: Array<Billing.InvoiceRecord["refunds"][number]>
  readonly creditNotes: Array<Billing.InvoiceRecord["creditNotes"][number]>
  readonly collection: Billing.InvoiceRecord["collection"]
}

const NO_EXTRAS: Extras = { refunds: [], creditNotes: [], collection: null }

const toRecord = (row: any, lines: ReadonlyArray<Billing.InvoiceLine>, extras: Extras = NO_EXTRAS): Billing.InvoiceRecord => ({
  id: row.id,
  platformId: row.platform_id ?? null,
  customerId: row.customer_id,
  subscriptionId: row.subscription_id ?? null,
  status: row.status,
  currency: row.currency,
  description: row.description ?? null,
  periodStart: Rows.iso(row.period_start),
  periodEnd: Rows.iso(row.period_end),
  subtotalMinor: Number(row.subtotal_minor),
  totalMinor: Number(row.total_minor),
  amountDueMinor: Number(row.amount_due_minor),
  amountPaidMinor: Number(row.amount_paid_minor),
  lines: [...lines],
  createdAt: Rows.iso(row.created_at),
  finalizedAt: Rows.isoOrNull(row.finalized_at),
  paidAt: Rows.isoOrNull(row.paid_at),
  amountRefundedMinor: Number(row.amount_refunded_minor ?? 0),
  amountCreditedMinor: Number(row.amount_credited_minor ?? 0),
  refunds: extras.refunds,
  creditNotes: extras.creditNotes,
  collection: extras.collection
})

/**
 * Invoices and their lines. An invoice is finalized when it is made (status `open`, or `paid` when
 * nothing is due) and is immutable from then on: only its payment is recorded (decision 0435).
 * Each change records its event in its transaction: `invoice.finalized` when an invoice is made (or
 * first mirrored from Stripe), `invoice.paid` when it becomes `paid`; `paymentFailed` records
 * `invoice.payment_failed`.
 */
export class Invoices extends Effect.Service<Invoices>()("@core/billing/Invoices", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const outbox = yield* Effect.serviceOption(EventOutbox.EventOutbox)
    const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die)) as Effect.Effect<A, E, R>

    /** Record an invoice's event on the current transaction, to its subscription's organization (none: nobody is told). */
    const tell = (type: "invoice.finalized" | "invoice.paid" | "invoice.payment_failed", invoice: Billing.InvoiceRecord) =>
      Option.isNone(outbox) || invoice.subscriptionId === null
        ? Effect.void
        : Effect.flatMap(
          sql<{ organization_id: string | null }>`SELECT organization_id FROM billing.subscriptions WHERE id = ${invoice.subscriptionId}`.pipe(Effect.orDie),
          (rows) => {
            const organizationId = rows[0]?.organization_id ?? null
            return organizationId === null ? Effect.void : outbox.value.record({ type, organizationId, platformId: invoice.platformId, data: invoice })
          }
        )

    const linesOf = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed(new Map<string, Array<Billing.InvoiceLine>>())
        : Effect.map(sql`SELECT * FROM billing.invoice_lines WHERE invoice_id IN ${sql.in(ids)} ORDER BY invoice_id, position`, (rows) => {
          const byInvoice = new Map<string, Array<Billing.InvoiceLine>>()
          for (const row of rows as ReadonlyArray<any>) {
            const list = byInvoice.get(row.invoice_id) ?? []
            list.push(toLine(row))
            byInvoice.set(row.invoice_id, list)
          }
          return byInvoice
        })

    /** The refunds, credit notes and collection of invoices, by invoice. */
    const extrasOf = (ids: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const byInvoice = new Map<string, Extras>()
        if (ids.length === 0) return byInvoice
        const of = (id: string) => {
          const found = byInvoice.get(id) ?? { refunds: [], creditNotes: [], collection: null }
          byInvoice.set(id, found)
          return found
        }
        for (const row of (yield* sql`SELECT * FROM billing.invoice_adjustments WHERE invoice_id IN ${sql.in(ids)} ORDER BY created_at, provider_id`) as ReadonlyArray<any>) {
          const base = { id: row.provider_id, amountMinor: Number(row.amount_minor), status: row.status, reason: row.reason ?? null, createdAt: Rows.iso(row.created_at) }
          if (row.kind === "refund") of(row.invoice_id).refunds.push(base)
          else of(row.invoice_id).creditNotes.push({ ...base, number: row.number ?? "", type: row.type ?? "post_payment" })
        }
        for (const row of (yield* sql`SELECT * FROM billing.invoice_collections WHERE invoice_id IN ${sql.in(ids)}`) as ReadonlyArray<any>) {
          byInvoice.set(row.invoice_id, {
            ...of(row.invoice_id),
            collection: { state: row.state, failedAttempts: Number(row.failed_attempts), nextAttemptAt: Rows.isoOrNull(row.next_attempt_at), lastFailure: row.last_failure ?? null }
          })
        }
        return byInvoice
      })

    const withLines = (rows: ReadonlyArray<any>) =>
      Effect.gen(function*() {
        const ids = rows.map((row) => row.id as string)
        const lines = yield* linesOf(ids)
        const extras = yield* extrasOf(ids)
        return rows.map((row) => toRecord(row, lines.get(row.id) ?? [], extras.get(row.id)))
      })

    const get = (id: string) =>
      Effect.flatMap(sql`SELECT * FROM billing.invoices WHERE id = ${id}`, (rows) =>
        rows.length === 0 ? Effect.succeed(Option.none<Billing.InvoiceRecord>()) : Effect.map(withLines(rows), (all) => Option.some(all[0]))).pipe(Effect.orDie)

    const insertLines = (id: string, lines: ReadonlyArray<Billing.InvoiceLine>) =>
      Effect.forEach(lines, (line, position) =>
        sql`INSERT INTO billing.invoice_lines (invoice_id, position, kind, description, meter, quantity, unit_amount_minor, amount_minor)
          VALUES (${id}, ${position}, ${line.kind}, ${line.description.slice(0, 500)}, ${line.meter}, ${line.quantity}, ${line.unitAmountMinor}, ${line.amountMinor})`, { discard: true })

    /** Make and finalize an invoice: `paid` at once when nothing is due, else `open`. */
    const create = (input: NewInvoice) =>
      Effect.gen(function*() {
        const id = yield* billingId("in")
        const at = new Date(yield* Clock.currentTimeMillis)
        const total = totalOf(input.lines)
        const subtotal = totalOf(input.lines.filter((line) => line.kind !== "credit"))
        const due = Math.max(0, total)
        yield* sql`INSERT INTO billing.invoices (id, platform_id, customer_id, subscription_id, kind, status, currency, description,
            period_start, period_end, subtotal_minor, total_minor, amount_due_minor, amount_paid_minor, created_at, finalized_at, paid_at)
          VALUES (${id}, ${input.platformId}, ${input.customerId}, ${input.subscriptionId}, ${input.kind}, ${due === 0 ? "paid" : "open"}, ${input.currency},
            ${input.description}, ${input.periodStart}, ${input.periodEnd}, ${subtotal}, ${total}, ${due}, 0, ${at}, ${at}, ${due === 0 ? at : null})`
        yield* insertLines(id, input.lines)
        const invoice = Option.getOrThrow(yield* get(id))
        yield* tell("invoice.finalized", invoice)
        if (invoice.status === "paid") yield* tell("invoice.paid", invoice)
        return invoice
      }).pipe(inTransaction, Effect.orDie)

    /**
     * Mirror a Stripe invoice (decision 0449): one row per Stripe invoice, inserted the first time
     * and then given Stripe's status, amounts and lines; a re-read older than what is kept (a
     * status earlier in draft → open → uncollectible → paid/void) changes nothing, so deliveries
     * twice or out of order end in Stripe's state. A draft is not mirrored (it is not final).
     */
    const mirror = (invoice: ProviderInvoice, owner: { readonly platformId: string; readonly subscriptionId: string; readonly description?: string | undefined }) =>
      Effect.gen(function*() {
        if (invoice.status === "draft") return Option.none<Billing.InvoiceRecord>()
        const lines = mirroredLines(invoice)
        const kind = kindOfReason(invoice.billingReason)
        const total = totalOf(lines)
        const subtotal = totalOf(lines.filter((line) => line.kind !== "credit"))
        const starts = invoice.lines.map((line) => line.periodStart.getTime())
        const ends = invoice.lines.map((line) => line.periodEnd.getTime())
        const periodStart = starts.length === 0 ? invoice.periodStart : new Date(Math.min(...starts))
        const periodEnd = ends.length === 0 ? invoice.periodEnd : new Date(Math.max(...ends))
        const id = yield* billingId("in")
        const before = (yield* sql<{ status: string }>`SELECT status FROM billing.invoices WHERE provider_invoice_id = ${invoice.id}`)[0]?.status
        const written = yield* sql`INSERT INTO billing.invoices (id, platform_id, customer_id, subscription_id, kind, status, currency, description,
            period_start, period_end, subtotal_minor, total_minor, amount_due_minor, amount_paid_minor, created_at, finalized_at, paid_at, provider_invoice_id)
          VALUES (${id}, ${owner.platformId}, ${invoice.customerId}, ${owner.subscriptionId}, ${kind}, ${invoice.status}, ${invoice.currency},
            ${owner.description ?? DESCRIPTIONS[kind]}, ${periodStart}, ${periodEnd}, ${subtotal}, ${total}, ${invoice.amountDueMinor},
            ${invoice.amountPaidMinor}, ${invoice.createdAt}, ${invoice.finalizedAt ?? invoice.createdAt}, ${invoice.paidAt}, ${invoice.id})
          ON CONFLICT (provider_invoice_id) WHERE provider_invoice_id IS NOT NULL DO UPDATE SET
            status = EXCLUDED.status, subtotal_minor = EXCLUDED.subtotal_minor, total_minor = EXCLUDED.total_minor,
            amount_due_minor = EXCLUDED.amount_due_minor, amount_paid_minor = EXCLUDED.amount_paid_minor,
            finalized_at = COALESCE(billing.invoices.finalized_at, EXCLUDED.finalized_at), paid_at = COALESCE(billing.invoices.paid_at, EXCLUDED.paid_at)
          WHERE ${sql.literal(rankOf("EXCLUDED.status"))} >= ${sql.literal(rankOf("billing.invoices.status"))}
          RETURNING id`
        const kept = written[0]?.id as string | undefined
        if (kept !== undefined) {
          yield* sql`DELETE FROM billing.invoice_lines WHERE invoice_id = ${kept}`
          yield* insertLines(kept, lines)
          const after = yield* get(kept)
          if (Option.isSome(after)) {
            if (before === undefined) yield* tell("invoice.finalized", after.value)
            if (after.value.status === "paid" && before !== "paid") yield* tell("invoice.paid", after.value)
          }
          return after
        }
        return yield* Effect.map(sql`SELECT id FROM billing.invoices WHERE provider_invoice_id = ${invoice.id}`, (rows) => rows[0]?.id as string).pipe(Effect.flatMap(get))
      }).pipe(inTransaction, Effect.orDie)

    /** Record an open (or uncollectible) invoice's payment: `paid`, the amount due paid. Nothing else of it changes. */
    const markPaid = (id: string) =>
      Effect.gen(function*() {
        const at = new Date(yield* Clock.currentTimeMillis)
        const changed = yield* sql`UPDATE billing.invoices SET status = 'paid', amount_paid_minor = amount_due_minor, paid_at = ${at}
          WHERE id = ${id} AND status IN ('open', 'uncollectible') RETURNING id`
        const invoice = Option.getOrThrow(yield* get(id))
        if (changed.length > 0) yield* tell("invoice.paid", invoice)
        return invoice
      }).pipe(inTransaction, Effect.orDie)

    /** Record that a payment of invoice `id` failed (`invoice.payment_failed`, the invoice as it is), on the current transaction. */
    const paymentFailed = (id: string) =>
      Effect.flatMap(get(id), Option.match({ onNone: () => Effect.void, onSome: (invoice) => tell("invoice.payment_failed", invoice) }))

    /** Give up collecting an open invoice of billing's own (decision 0586): `uncollectible`; paying it later still makes it `paid`. */
    const markUncollectible = (id: string) =>
      Effect.gen(function*() {
        yield* sql`UPDATE billing.invoices SET status = 'uncollectible' WHERE id = ${id} AND status = 'open'`
        return Option.getOrThrow(yield* get(id))
      }).pipe(Effect.orDie)

    /** The Stripe invoice a row mirrors; `null`: billing's own. */
    const providerIdOf = (id: string) =>
      Effect.map(sql`SELECT provider_invoice_id FROM billing.invoices WHERE id = ${id}`, (rows) => (rows[0]?.provider_invoice_id as string | undefined) ?? null).pipe(Effect.orDie)

    /** The billing invoice that mirrors a Stripe invoice. */
    const byProviderId = (providerInvoiceId: string) =>
      Effect.flatMap(sql`SELECT id FROM billing.invoices WHERE provider_invoice_id = ${providerInvoiceId}`, (rows) =>
        rows.length === 0 ? Effect.succeed(Option.none<Billing.InvoiceRecord>()) : get(rows[0]!.id as string)).pipe(Effect.orDie)

    /** Whether billing's final invoice of a subscription's period exists already (one per period). */
    const finalExists = (subscriptionId: string, periodStart: Date) =>
      Effect.map(sql`SELECT id FROM billing.invoices WHERE subscription_id = ${subscriptionId} AND period_start = ${periodStart} AND kind = 'final'`, (rows) => rows.length > 0).pipe(
        Effect.orDie
      )

    /** A platform's invoices, newest first, by keyset on (created_at, id). */
    const list = (platformId: string, query: { readonly cursor?: string | undefined; readonly limit: number }) =>
      Effect.gen(function*() {
        const after = query.cursor === undefined ? undefined : yield* Cursor.decode(Cursor.CreatedAtId, query.cursor)
        const rows = yield* (after === undefined
          ? sql`SELECT * FROM billing.invoices WHERE platform_id = ${platformId}
              ORDER BY created_at DESC, id DESC LIMIT ${query.limit + 1}`
          : sql`SELECT * FROM billing.invoices WHERE platform_id = ${platformId}
              AND (created_at, id) < (${after.createdAt}, ${after.id})
              ORDER BY created_at DESC, id DESC LIMIT ${query.limit + 1}`).pipe(Effect.orDie)
        const page = Cursor.page(rows as ReadonlyArray<any>, query.limit, (row) => ({ createdAt: Rows.iso(row.created_at), id: row.id }))
        return { data: yield* withLines(page.data).pipe(Effect.orDie), hasMore: page.hasMore, nextCursor: page.nextCursor }
      })

    /** Billing's own open invoices of a subscription, oldest first (what paying settles; Stripe collects its own). */
    const open = (subscriptionId: string) =>
      Effect.flatMap(sql`SELECT * FROM billing.invoices WHERE subscription_id = ${subscriptionId} AND status = 'open' AND provider_invoice_id IS NULL ORDER BY created_at, id`, withLines).pipe(
        Effect.orDie
      )

    /** Whether a period-end invoice exists already. */
    const forPeriod = (subscriptionId: string, periodStart: Date) =>
      Effect.map(sql`SELECT id FROM billing.invoices WHERE subscription_id = ${subscriptionId} AND period_start = ${periodStart} AND kind = 'period' AND provider_invoice_id IS NULL`, (rows) => rows.length > 0).pipe(
        Effect.orDie
      )

    /**
     * Rewrite a mirrored invoice's refunds and credit notes from the provider's current state
     * (decision 0587), the invoice row locked: deliveries twice or in any order end the same.
     */
    const adjust = (id: string, adjustments: InvoiceAdjustments) =>
      Effect.gen(function*() {
        yield* sql`SELECT id FROM billing.invoices WHERE id = ${id} FOR UPDATE`
        yield* sql`DELETE FROM billing.invoice_adjustments WHERE invoice_id = ${id}`
        for (const refund of adjustments.refunds) {
          yield* sql`INSERT INTO billing.invoice_adjustments (provider_id, invoice_id, kind, amount_minor, status, reason, created_at)
            VALUES (${refund.id}, ${id}, 'refund', ${refund.amountMinor}, ${refund.status}, ${refund.reason}, ${refund.createdAt})`
        }
        for (const note of adjustments.creditNotes) {
          yield* sql`INSERT INTO billing.invoice_adjustments (provider_id, invoice_id, kind, number, amount_minor, status, type, reason, created_at)
            VALUES (${note.id}, ${id}, 'credit_note', ${note.number}, ${note.amountMinor}, ${note.status}, ${note.type}, ${note.reason}, ${note.createdAt})`
        }
        const refunded = totalOf(adjustments.refunds.filter((refund) => refund.status === "succeeded" || refund.status === "pending").map((refund) => ({ amountMinor: refund.amountMinor })))
        const credited = totalOf(adjustments.creditNotes.filter((note) => note.status === "issued").map((note) => ({ amountMinor: note.amountMinor })))
        yield* sql`UPDATE billing.invoices SET amount_refunded_minor = ${refunded}, amount_credited_minor = ${credited} WHERE id = ${id}`
        return Option.getOrThrow(yield* get(id))
      }).pipe(Effect.orDie)

    /** Over every invoice: refunded, credited, and what is due on uncollectible ones (the operator overview). */
    const totals = Effect.map(
      sql`SELECT coalesce(sum(amount_refunded_minor), 0)::text AS refunded, coalesce(sum(amount_credited_minor), 0)::text AS credited,
          coalesce(sum(CASE WHEN status = 'uncollectible' THEN amount_due_minor - amount_paid_minor ELSE 0 END), 0)::text AS uncollectible,
          (SELECT count(*) FROM billing.invoice_collections WHERE state = 'retrying')::int AS collecting
        FROM billing.invoices`,
      (rows) => ({ refundedMinor: Number(rows[0]?.refunded ?? 0), creditedMinor: Number(rows[0]?.credited ?? 0), uncollectibleMinor: Number(rows[0]?.uncollectible ?? 0), collecting: Number(rows[0]?.collecting ?? 0) })
    ).pipe(Effect.orDie)

    return { get, create, mirror, markPaid, paymentFailed, markUncollectible, providerIdOf, byProviderId, finalExists, adjust, totals, list, open, forPeriod }
  })
}) {}
