import { HttpServerResponse } from "@effect/platform"
import { Billing } from "@core/contracts"
import { type ErrorResponse, Route } from "@core/kernel"
import { Effect } from "effect"
import { Payments } from "./Payments.js"
import { publicBaseOf } from "./SubscriptionsHttp.js"

const routes = Billing.BillingRoutes

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[char] as string)

const money = (minor: number): string => `$${(minor / 100).toFixed(2)}`

/** The portal's pages answer errors as a short page, not JSON. */
const pageRenderer: ErrorResponse.Renderer = {
  render: (problem) =>
    HttpServerResponse.html(`<!doctype html><title>Billing portal</title><p>${escape(problem.message)}</p>`).pipe(HttpServerResponse.setStatus(problem.status))
}

/** The local customer portal (decision 0441): the session id in the path is its credential. */
export const PortalHandlers = Route.rendered(pageRenderer, [
  Route.handle(routes.portalPage, ({ params, request }) =>
    Effect.gen(function*() {
      const { methods, session, subscription } = yield* Effect.flatMap(Payments, (payments) => payments.portalState(params.sessionId))
      const base = `${publicBaseOf(request)}/portal/sessions/${encodeURIComponent(session.id)}`
      const rows = methods.map((method) => `<li>${escape(method.card.brand)} •••• ${escape(method.card.last4)}${method.isDefault ? " (default)" : ""}</li>`).join("")
      const html = `<!doctype html><html><head><meta charset="utf-8"><title>Billing portal</title></head><body>
<h1>Billing</h1>
<p id="plan">Plan: <strong>${escape(subscription.tier)}</strong> — ${money(subscription.priceMinor)} a month — status <strong>${escape(subscription.status)}</strong>${subscription.cancelAtPeriodEnd ? ` — cancels on ${escape(subscription.currentPeriodEnd.slice(0, 10))}` : ""}</p>
<h2>Payment methods</h2><ul id="methods">${rows || "<li>None yet</li>"}</ul>
<form method="post" action="${escape(base)}/payment-method"><label>Card number <input name="card" autocomplete="cc-number" required></label> <button>Use this card</button></form>
${subscription.cancelAtPeriodEnd || subscription.status === "cancelled" ? "" : `<form method="post" action="${escape(base)}/cancel"><button>Cancel at the end of the period</button></form>`}
<p><a href="${escape(session.returnUrl)}">Back</a></p>
</body></html>`
      return HttpServerResponse.html(html).pipe(HttpServerResponse.setHeader("cache-control", "no-store"))
    })),
  Route.handle(routes.portalPaymentMethod, ({ params, body, request }) =>
    Effect.gen(function*() {
      const session = yield* Effect.flatMap(Payments, (payments) => payments.portalChangePaymentMethod(params.sessionId, body.card))
      return HttpServerResponse.empty({ status: 303, headers: { location: `${publicBaseOf(request)}/portal/sessions/${encodeURIComponent(session.id)}` } })
    })),
  Route.handle(routes.portalCancel, ({ params, request }) =>
    Effect.gen(function*() {
      const session = yield* Effect.flatMap(Payments, (payments) => payments.portalCancel(params.sessionId))
      return HttpServerResponse.empty({ status: 303, headers: { location: `${publicBaseOf(request)}/portal/sessions/${encodeURIComponent(session.id)}` } })
    }))
] as const)
