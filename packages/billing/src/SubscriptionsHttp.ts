import { type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Billing } from "@core/contracts"
import { CoreConfig, type ErrorResponse, PublicUrl, RedirectTarget, Route } from "@core/kernel"
import { Effect, Option } from "effect"
import { invoiceNotFound, untrustedReturnUrl } from "./Errors.js"
import { Invoices } from "./Invoices.js"
import { Payments } from "./Payments.js"
import { namedPlatform, ownPlatform } from "./Policy.js"
import { Subscriptions } from "./Subscriptions.js"
import { Upgrade } from "./Upgrade.js"

const routes = Billing.BillingRoutes

/** The address a page of this service is reached at: the forwarded prefix kept (`/api/v1/billing`). */
export const publicBaseOf = (request: HttpServerRequest.HttpServerRequest): string => {
  const proto = request.headers["x-forwarded-proto"]?.split(",")[0]?.trim() || "http"
  const host = request.headers["x-forwarded-host"]?.split(",")[0]?.trim() || request.headers.host || "localhost"
  const prefix = request.headers["x-forwarded-prefix"] ?? ""
  return `${proto}://${host}${/^\/[A-Za-z0-9/_-]*$/.test(prefix) ? prefix.replace(/\/$/, "") : ""}`
}

/** The upgrade's envelope as the seed shows it: `{ error: { code, message, requestId } }`, no `details`. */
const upgradeRenderer: ErrorResponse.Renderer = {
  render: (problem, requestId) =>
    HttpServerResponse.unsafeJson({ error: { code: problem.code, message: problem.message, requestId } }, {
      status: problem.status,
      headers: { ...problem.headers }
    })
}

/** The upgrade, whose errors leave out `details` (seed 001). */
const UpgradeHandlers = Route.rendered(upgradeRenderer, [
  Route.handle(routes.upgrade, ({ caller, body }) =>
    Effect.gen(function*() {
      const platform = yield* ownPlatform(caller, "billing:manage")
      return yield* Effect.flatMap(Upgrade, (upgrade) => upgrade.upgrade(platform, body))
    }))
] as const)

/** The subscription, invoice and payment routes served at `/api/billing<path>` and `<path>`. */
export const SubscriptionHandlers = [
  ...UpgradeHandlers,
  Route.handle(routes.getSubscription, ({ caller, query }) =>
    Effect.gen(function*() {
      const platform = yield* namedPlatform(caller, query.platformId, "billing:read")
      return yield* Effect.flatMap(Subscriptions, (subscriptions) => subscriptions.ofPlatform(platform))
    })),
  // The registry's creation hook from another process (decision 0447): the service key only.
  Route.handle(routes.ensurePlatformSubscription, ({ caller, params, body }) =>
    Effect.gen(function*() {
      const platform = yield* namedPlatform(caller, params.platformId, "billing:manage")
      const email = body?.billingEmail
      return yield* Effect.flatMap(Subscriptions, (subscriptions) =>
        email === undefined ? subscriptions.ofPlatform(platform) : subscriptions.withBillingEmail(platform, email))
    })),
  Route.handle(routes.cancelSubscription, ({ caller }) =>
    Effect.gen(function*() {
      const platform = yield* ownPlatform(caller, "billing:manage")
      return yield* Effect.flatMap(Subscriptions, (subscriptions) => subscriptions.cancel(platform))
    })),
  Route.handle(routes.changeTier, ({ caller, body }) =>
    Effect.gen(function*() {
      const platform = yield* ownPlatform(caller, "billing:manage")
      return yield* Effect.flatMap(Subscriptions, (subscriptions) => subscriptions.changeTier(platform, body.tier))
    })),
  Route.handle(routes.prorationPreview, ({ caller, query }) =>
    Effect.gen(function*() {
      const platform = yield* ownPlatform(caller, "billing:read")
      return yield* Effect.flatMap(Subscriptions, (subscriptions) => subscriptions.preview(platform, query.tier))
    })),
  Route.handle(routes.listInvoices, ({ caller, query }) =>
    Effect.gen(function*() {
      const platform = yield* namedPlatform(caller, query.platformId, "billing:read")
      return yield* Effect.flatMap(Invoices, (invoices) => invoices.list(platform.id, query))
    })),
  Route.handle(routes.getInvoice, ({ caller, params, query }) =>
    Effect.gen(function*() {
      const platform = query.platformId === undefined
        ? yield* ownPlatform(caller, "billing:read")
        : yield* namedPlatform(caller, query.platformId, "billing:read")
      const found = yield* Effect.flatMap(Invoices, (invoices) => invoices.get(params.id))
      if (Option.isNone(found) || found.value.platformId !== platform.id) return yield* invoiceNotFound
      return found.value
    })),
  Route.handle(routes.listPaymentMethods, ({ caller }) =>
    Effect.gen(function*() {
      const platform = yield* ownPlatform(caller, "billing:read")
      return yield* Effect.flatMap(Payments, (payments) => payments.paymentMethods(platform))
    })),
  Route.handle(routes.createSetupIntent, ({ caller }) =>
    Effect.gen(function*() {
      const platform = yield* ownPlatform(caller, "billing:manage")
      return yield* Effect.flatMap(Payments, (payments) => payments.setupIntent(platform))
    })),
  Route.handle(routes.createPortalSession, ({ caller, body, request }) =>
    Effect.gen(function*() {
      const platform = yield* ownPlatform(caller, "billing:manage")
      const base = publicBaseOf(request)
      const config = yield* Effect.serviceOption(CoreConfig)
      const policy = Option.match(config, {
        onNone: () => ({ publicUrl: base }),
        onSome: (core) => ({ publicUrl: PublicUrl.rootOf(request, core), trustedOrigins: [core.publicUrl, ...core.corsOrigins] })
      })
      const returnUrl = RedirectTarget.check(body.returnUrl, policy)
      if (returnUrl === undefined) {
        return yield* untrustedReturnUrl
      }
      return yield* Effect.flatMap(Payments, (payments) => payments.portal(platform, returnUrl.href, base))
    }))
]
