import type { Billing } from "@core/contracts"
import { type Conflict, type NotFound, type PaymentFailed, type Unauthorized, type ValidationError } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Duration, Effect, Option } from "effect"
import { createHash } from "node:crypto"
import { addMonth } from "./adapters/PaymentProviderLocal.js"
import { Invoices } from "./Invoices.js"
import { Plans } from "./Plans.js"
import type { PlatformView } from "./ports/BillingPlatforms.js"
import { PaymentProvider } from "./ports/PaymentProvider.js"
import { makeProviderStart } from "./ProviderStart.js"
import { Subscriptions } from "./Subscriptions.js"
import { SubscriptionsRepo } from "./SubscriptionsRepo.js"
import { alreadyOnPaidPlan, replayedUpgradeError, upgradeKeyInProgress, upgradeKeyReused, upgradePaymentMethodUnknown } from "./Errors.js"

/** How long an idempotency key is kept (Stripe's 24 hours). */
export const KEY_TTL = Duration.hours(24)
/** How long a request waits for another one with the same key to finish. */
const WAIT_LIMIT_MS = 30_000

/** An answer kept under a key: the success body, or the error's status, code and message. */
type Stored =
  | { readonly ok: true; readonly body: Billing.UpgradeResult }
  | { readonly ok: false; readonly status: number; readonly code: string; readonly message: string }

type UpgradeError = PaymentFailed | Conflict | NotFound

/** The error an answer kept under a key stands for, so a replay answers the same status and body. */
const replayError = (stored: Extract<Stored, { ok: false }>): UpgradeError | Unauthorized | ValidationError => {
  return replayedUpgradeError(stored.status, stored.message)
}

const statusOf = (error: UpgradeError): number => (error._tag === "PaymentFailed" ? 402 : error._tag === "Conflict" ? 409 : 404)
const codeOf = (error: UpgradeError): string => (error._tag === "PaymentFailed" ? "PAYMENT_FAILED" : error._tag === "Conflict" ? "CONFLICT" : "NOT_FOUND")

/** The request's fingerprint: the same key with another body is a conflict. */
const hashOf = (body: Billing.UpgradeRequest): string =>
  createHash("sha256").update(JSON.stringify([body.planId, body.paymentMethodId, body.billingEmail])).digest("hex")

/**
 * `POST /api/billing/upgrade` (decision 0439): a free platform to a paid plan, with Stripe's
 * idempotency semantics — the same key and body answer the first result (success or error), the
 * same key with another body answers 409, keys are kept 24 hours, and concurrent requests with one
 * key charge once (the key's row is claimed first; the others wait for its answer).
 */
export class Upgrade extends Effect.Service<Upgrade>()("@core/billing/Upgrade", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const subscriptions = yield* Subscriptions
    const repo = yield* SubscriptionsRepo
    const provider = yield* PaymentProvider
    const invoices = yield* Invoices
    const plans = yield* Plans
    const providerStart = makeProviderStart(provider, invoices)
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    /** The upgrade itself, once per key. */
    const perform = (platform: PlatformView, body: Billing.UpgradeRequest) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* subscriptions.ensure(platform)
        const row = Option.getOrThrow(yield* repo.byPlatform(platform.id, true))
        if (row.planId !== "free" && row.status !== "cancelled") {
          return yield* alreadyOnPaidPlan(row.planId)
        }
        const plan = plans.get(body.planId as Billing.PaidTier)
        yield* provider.updateCustomer(row.customerId, { email: body.billingEmail })
        const method = yield* provider.attachPaymentMethod(row.customerId, body.paymentMethodId).pipe(
          Effect.mapError(() => upgradePaymentMethodUnknown)
        )
        // With Stripe the platform's subscription lives there: started by `ProviderStart` (the code path
        // a change of tier from free shares; decisions 0448/0449) under a key of the upgrade's own, so a
        // retry never makes a second; its first invoice, mirrored, is the upgrade's. Locally billing charges.
        const started = provider.kind === "stripe"
          ? yield* providerStart.start({
            row,
            plan,
            paymentMethodId: method.id,
            idempotencyKey: `core-upgrade-${platform.id}-${body.idempotencyKey.toLowerCase()}`,
            description: `Upgrade to ${plan.name}`
          })
          : null
        const kept = started?.subscription ?? null
        if (kept === null) {
          yield* provider.charge({ customerId: row.customerId, paymentMethodId: method.id, amountMinor: plan.priceMinor, currency: plan.currency, description: `${plan.name} plan` })
        }
        yield* provider.setDefaultPaymentMethod(row.customerId, method.id)
        const at = kept === null ? yield* now : kept.currentPeriodStart
        const periodEnd = kept === null ? addMonth(at) : kept.currentPeriodEnd
        const mirrored = started?.invoice ?? Option.none()
        const invoice = Option.isSome(mirrored) ? mirrored.value : yield* invoices.create({
          platformId: platform.id,
          customerId: row.customerId,
          subscriptionId: row.id,
          kind: "upgrade",
          currency: plan.currency,
          description: `Upgrade to ${plan.name}`,
          periodStart: at,
          periodEnd,
          lines: [{ kind: "base", description: `${plan.name} plan`, meter: null, quantity: 1, unitAmountMinor: plan.priceMinor, amountMinor: plan.priceMinor }]
        })
        const paid = invoice.status !== "open" || Option.isSome(mirrored) ? invoice : yield* invoices.markPaid(invoice.id)
        const saved = yield* subscriptions.save({
          ...row,
          planId: plan.id,
          status: "active",
          currentPeriodStart: at,
          currentPeriodEnd: periodEnd,
          cancelAtPeriodEnd: false,
          cancelledAt: null,
          trialEnd: null,
          pastDueSince: null,
          overridden: false,
          paymentMethodId: method.id,
          providerSubscriptionId: kept?.id ?? null
        }, row)
        return { subscription: subscriptions.record(saved), invoice: paid }
      })).pipe(Effect.catchTag("SqlError", Effect.die))

    /** Claim the key: `true` when this request owns it, else the row another one holds. */
    const claim = (scope: string, key: string, hash: string) =>
      Effect.gen(function*() {
        const at = yield* now
        yield* sql`DELETE FROM billing.idempotency_keys WHERE scope = ${scope} AND key = ${key} AND expires_at <= ${at}`
        const inserted = yield* sql`INSERT INTO billing.idempotency_keys (scope, key, request_hash, created_at, expires_at)
          VALUES (${scope}, ${key}, ${hash}, ${at}, ${new Date(at.getTime() + Duration.toMillis(KEY_TTL))})
          ON CONFLICT (scope, key) DO NOTHING RETURNING key`
        return inserted.length > 0
      }).pipe(Effect.orDie)

    const read = (scope: string, key: string) =>
      Effect.map(sql`SELECT request_hash, status, body FROM billing.idempotency_keys WHERE scope = ${scope} AND key = ${key}`, (rows) => rows[0] as any).pipe(Effect.orDie)

    const store = (scope: string, key: string, status: number, stored: Stored) =>
      sql`UPDATE billing.idempotency_keys SET status = ${status}, body = ${JSON.stringify(stored)}::jsonb WHERE scope = ${scope} AND key = ${key}`.pipe(Effect.orDie)

    const release = (scope: string, key: string) =>
      sql`DELETE FROM billing.idempotency_keys WHERE scope = ${scope} AND key = ${key} AND status IS NULL`.pipe(Effect.orDie)

    const answer = (stored: Stored) => (stored.ok ? Effect.succeed(stored.body) : Effect.fail(replayError(stored)))

    /** Wait for the request holding the key to store its answer. */
    const awaitAnswer = (scope: string, key: string, hash: string) =>
      Effect.gen(function*() {
        const started = Date.now()
        while (Date.now() - started < WAIT_LIMIT_MS) {
          const row = yield* read(scope, key)
          if (row === undefined) return Option.none<Stored>()
          if (row.request_hash !== hash) return yield* upgradeKeyReused
          if (row.status !== null && row.status !== undefined) {
            return Option.some((typeof row.body === "string" ? JSON.parse(row.body) : row.body) as Stored)
          }
          yield* Effect.sleep(Duration.millis(25))
        }
        return yield* upgradeKeyInProgress
      })

    const upgrade = Effect.fn("Upgrade.upgrade")(function*(platform: PlatformView, body: Billing.UpgradeRequest): Effect.fn.Return<Billing.UpgradeResult, UpgradeError | Unauthorized | ValidationError> {
      const scope = platform.id
      const key = body.idempotencyKey.toLowerCase()
      const hash = hashOf(body)
      for (let attempt = 0; attempt < 3; attempt++) {
        if (yield* claim(scope, key, hash)) {
          // A defect leaves no answer to replay: the key is given back, so that a retry runs again.
          const outcome = yield* Effect.either(perform(platform, body)).pipe(
            Effect.onExit((exit) => (exit._tag === "Failure" ? release(scope, key) : Effect.void))
          )
          const stored: Stored = outcome._tag === "Right"
            ? { ok: true, body: outcome.right }
            : { ok: false, status: statusOf(outcome.left), code: codeOf(outcome.left), message: outcome.left.message }
          yield* store(scope, key, stored.ok ? 200 : stored.status, stored)
          return yield* answer(stored)
        }
        const existing = yield* awaitAnswer(scope, key, hash)
        if (Option.isSome(existing)) return yield* answer(existing.value)
      }
      return yield* upgradeKeyInProgress
    })

    return { upgrade }
  })
}) {}
