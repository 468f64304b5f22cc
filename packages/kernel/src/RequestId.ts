import type { HttpServerRequest } from "@effect/platform"
import { randomUUID } from "node:crypto"

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Whether an inbound request id is safe to echo (bounded, no header injection). */
export const isValidRequestId = (value: string): boolean => REQUEST_ID.test(value)

const cache = new WeakMap<object, string>()

/**
 * The request id of a request: `X-Core-Request-Id` (set by the gateway), else a valid
 * `X-Request-Id`, else a new UUID — the same value for the same request object.
 */
export const requestIdOf = (request: HttpServerRequest.HttpServerRequest): string => {
  const known = cache.get(request)
  if (known !== undefined) return known
  const candidate = request.headers["x-core-request-id"] ?? request.headers["x-request-id"]
  const id = candidate !== undefined && isValidRequestId(candidate) ? candidate : randomUUID()
  cache.set(request, id)
  return id
}
