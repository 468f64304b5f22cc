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

/**
 * The client `X-Core-*` headers that are options of a request, not identity, and so pass through:
 * the deploy route's `x-core-deploy-branch` (decision 0481).
 */
export const CLIENT_CORE_HEADERS: ReadonlySet<string> = new Set(["x-core-deploy-branch"])

/** A client's `X-Request-Id` when it is valid (bounded, safe to echo), else a new UUID. */
export const requestIdFrom = (headers: Headers.Headers): string => {
  const candidate = headers["x-request-id"]
  return candidate !== undefined && RequestId.isValidRequestId(candidate) ? candidate : randomUUID()
}

/**
 * Take a request's headers in, in place: every client `X-Core-*` header removed, and the request id
 * set as `X-Request-Id` and `X-Core-Request-Id`. Answers the request id.
 */
export const adopt = (headers: Record<string, string | ReadonlyArray<string> | undefined>): string => {
  for (const name in headers) {
    if (CORE_HEADERS.test(name) && !CLIENT_CORE_HEADERS.has(name)) delete headers[name]
  }
  const requestId = requestIdFrom(headers as Headers.Headers)
  headers["x-request-id"] = requestId
  headers["x-core-request-id"] = requestId
  return requestId
}

const seen = new WeakMap<HttpServerRequest.HttpServerRequest, Inbound>()

/**
 * The inbound form of a request, the same for the same request object: its headers taken in by
 * `adopt` (on a copy) — so that `RequestId.requestIdOf` and every later step read the gateway's id,
 * never a client's.
 */
export const of = (request: HttpServerRequest.HttpServerRequest): Inbound => {
  const known = seen.get(request)
  if (known !== undefined) return known
  const headers: Record<string, string> = { ...request.headers }
  const requestId = adopt(headers)
  const inbound: Inbound = { requestId, request: request.modify({ headers: Headers.unsafeFromRecord(headers) }) }
  seen.set(request, inbound)
  seen.set(inbound.request, inbound)
  return inbound
}
