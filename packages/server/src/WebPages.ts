import { Headers, type HttpApp, HttpRouter, HttpServerRequest } from "@effect/platform"
import { notFoundPageRenderer, PAGE_PATHS } from "@core/auth"
import { Forwarding, type Upstream } from "@core/gateway"
import { ErrorResponse } from "@core/kernel"
import { Cause, Effect, Option } from "effect"

/**
 * The identity web pages at the server's root (`/`, `/sign-in`, `/sign-up`, `/account`, `/sign-out`,
 * `/forgot-password`, `/reset-password`, `/org-setup`, `/device`: `PAGE_PATHS`), answered by the IAM upstream — in process or over HTTP — as they are:
 * no prefix (a client's `X-Forwarded-Prefix` is dropped), hop-by-hop headers removed. Nothing else
 * of identity is served at the root (docs/decisions/0154). Empty when the build has no IAM upstream.
 */
export const routes = (upstreams: ReadonlyArray<Upstream.Upstream>) => {
  const iam = upstreams.find((upstream) => upstream.service === "IAM")
  if (iam === undefined) return HttpRouter.empty
  const forward = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    iam.forward(request.modify({
      headers: Headers.remove(request.headers, [...Forwarding.HOP_BY_HOP, "x-forwarded-prefix"])
    })))
  return HttpRouter.fromIterable(PAGE_PATHS.map((path) => HttpRouter.makeRoute("*", path, forward)))
}

/** The quality an `Accept` header gives `type` (`text/html`), by its most specific matching range. */
const qualityOf = (accept: string, type: string): number => {
  const [major] = type.split("/")
  let best = { specificity: -1, q: 0 }
  for (const range of accept.split(",")) {
    const [name = "", ...parameters] = range.trim().toLowerCase().split(";")
    const specificity = name === type ? 2 : name === `${major}/*` ? 1 : name === "*/*" ? 0 : -1
    if (specificity <= best.specificity) continue
    const q = parameters.map((parameter) => parameter.trim()).find((parameter) => parameter.startsWith("q="))
    best = { specificity, q: q === undefined ? 1 : Number(q.slice(2)) || 0 }
  }
  return best.q
}

/**
 * Whether a request asks for a page rather than JSON: `text/html` named in `Accept` and rated at
 * least as high as `application/json` (a browser's navigation; not curl's `*\/*`, nor the SDK's
 * `application/json`).
 */
export const prefersHtml = (accept: string | undefined): boolean =>
  accept !== undefined && /\btext\/html\b/i.test(accept) && qualityOf(accept, "text/html") > 0 &&
  qualityOf(accept, "text/html") >= qualityOf(accept, "application/json")

const isRouteNotFound = (cause: Cause.Cause<unknown>): boolean =>
  Option.exists(Cause.failureOption(cause), (error) =>
    typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "RouteNotFound")

/**
 * The fallback (`/health`, `/metrics`, the pages) with its 404 as a page for a browser (decision
 * 0617): a path nothing answers, asked for with `Accept: text/html`, gets the pages' "Page not
 * found"; any other client keeps the gateway's JSON envelope (404 `NOT_FOUND`).
 */
export const withPageNotFound = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.catchAllCause(app, (cause) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      isRouteNotFound(cause) && prefersHtml(request.headers.accept)
        ? ErrorResponse.handleCauseWith(notFoundPageRenderer(new URL(request.url, "http://core").pathname))(cause)
        : Effect.failCause(cause)))
