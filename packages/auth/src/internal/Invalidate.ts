import { HttpServerResponse } from "@effect/platform"

/** What a change makes stale in the gateway's credential cache. */
export interface Stale {
  readonly userId?: string
  readonly sessionId?: string
  readonly keyId?: string
  readonly platformId?: string
}

/** The response header the gateway reads (and removes) to drop cached credential answers. */
export const INVALIDATE_HEADER = "x-core-invalidate"

/**
 * Tell the gateway which cached credential answers a change made stale, in `X-Core-Invalidate`
 * (`user=usr_1, platform=plt_2`); the gateway drops them in its cache (Redis or memory) and never
 * passes the header to the client.
 *
 * @example
 * invalidates(json({ id }), { keyId: id })
 */
export const invalidates = (response: HttpServerResponse.HttpServerResponse, stale: Stale): HttpServerResponse.HttpServerResponse => {
  const parts = [
    stale.userId === undefined ? undefined : `user=${stale.userId}`,
    stale.sessionId === undefined ? undefined : `session=${stale.sessionId}`,
    stale.keyId === undefined ? undefined : `key=${stale.keyId}`,
    stale.platformId === undefined ? undefined : `platform=${stale.platformId}`
  ].filter((part) => part !== undefined)
  return parts.length === 0 ? response : HttpServerResponse.setHeader(response, INVALIDATE_HEADER, parts.join(", "))
}
