import { Headers, type HttpServerRequest } from "@effect/platform"
import { RequestId } from "@core/kernel"
import { randomUUID } from "node:crypto"

/** A request as the gateway passes it inward: its request id, and the request to hand on. */
export interface Inbound {
  readonly requestId: string
  readonly request: HttpServerRequest.HttpServerRequest
}

/** The headers only the gateway may set (`X-Core-*`). */
export const CORE_HEADERS = /^x-core-/

/** A client's `X-Request-Id` when it is valid (bounded, safe to echo), else a new UUID. */
export const requestIdFrom = (headers: Headers.Headers): string => {
  const candidate = headers["x-request-id"]
  return candidate !== undefined && RequestId.isValidRequestId(candidate) ? candidate : randomUUID()
}

/** The headers without any `X-Core-*` header a client sent. */
export const stripCoreHeaders = (headers: Headers.Headers): Headers.Headers =>
  Headers.remove(headers, CORE_HEADERS)

const seen = new WeakMap<HttpServerRequest.HttpServerRequest, Inbound>()

/**
 * The inbound form of a request, the same for the same request object: every client `X-Core-*`
 * header removed, and the request id set as `X-Request-Id` and `X-Core-Request-Id` — so that
 * `RequestId.requestIdOf` and every later step read the gateway's id, never a client's.
 */
export const of = (request: HttpServerRequest.HttpServerRequest): Inbound => {
  const known = seen.get(request)
  if (known !== undefined) return known
  const requestId = requestIdFrom(request.headers)
  const headers = Headers.setAll(stripCoreHeaders(request.headers), {
    "x-request-id": requestId,
    "x-core-request-id": requestId
  })
  const inbound: Inbound = { requestId, request: request.modify({ headers }) }
  seen.set(request, inbound)
  seen.set(inbound.request, inbound)
  return inbound
}
