import { Headers, HttpRouter, HttpServerRequest } from "@effect/platform"
import { PAGE_PATHS } from "@core/auth"
import { Forwarding, type Upstream } from "@core/gateway"
import { Effect } from "effect"

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
