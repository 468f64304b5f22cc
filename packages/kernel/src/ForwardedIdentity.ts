import { Headers, type HttpApp, HttpServerRequest } from "@effect/platform"
import { Effect, type Redacted } from "effect"
import type { Caller } from "./Caller.js"
import { deriveKey } from "./Crypto.js"
import { decode, LIFETIME_SECONDS } from "./internal/identityToken.js"

export { LIFETIME_SECONDS, MAX_TOKEN_LENGTH, sign } from "./internal/identityToken.js"

/**
 * The caller the gateway forwards to a service (docs/architecture.md, "One caller"; docs/gateway.md): the whole kernel
 * `Caller`, signed as `X-Core-Identity` (a 60-second HS256 JWT for one audience, under a key derived
 * from `CORE_SECRET`), with the seed's three plain headers derived from it. A service reads it
 * with `callerOf` after `guard`, or through `ForwardedCallers`.
 */

/**
 * The facts of the seed's plain headers `X-Core-User-Id`, `X-Core-Role` and `X-Core-Platform-Id`:
 * for a session the user id, the effective role and the platform; for an API key the key id as
 * user, role `apikey` and the key's platform; for the static key role `service` and nothing else.
 */
export interface Identity {
  readonly userId: string | null
  /** `owner`, `admin`, `member`, `operator`, `apikey` or `service`; `null` for a session outside any tenant. */
  readonly role: string | null
  readonly platformId: string | null
}

/** The identity headers a service may read, only ever set by the gateway. */
export const HEADERS = {
  userId: "x-core-user-id",
  role: "x-core-role",
  platformId: "x-core-platform-id",
  token: "x-core-identity"
} as const

const IDENTITY_HEADERS: ReadonlyArray<string> = Object.values(HEADERS)

/** The HS256 key of `X-Core-Identity`, derived from `CORE_SECRET` (the same in every process). */
export const keyFrom = (secret: Redacted.Redacted<string> | string): Uint8Array => deriveKey(secret, "gateway-identity")

/** The seed's header facts of a caller. */
export const identityOf = (caller: Caller): Identity => {
  switch (caller.kind) {
    case "service":
      return { userId: null, role: "service", platformId: null }
    case "apikey":
      return { userId: caller.keyId, role: "apikey", platformId: caller.platformId }
    case "user":
      return { userId: caller.userId, role: caller.role ?? null, platformId: caller.platformId ?? null }
  }
}

interface Verified {
  readonly key: Uint8Array
  readonly audience: string
  readonly caller: Caller
  /** The plain headers' facts, derived once. */
  readonly identity: Identity
  readonly issuedAt: number
  readonly expiresAt: number
}

const MAX_VERIFIED = 10_000

/**
 * Tokens already verified, by their exact text (the gateway reuses one per caller and service for
 * half its lifetime): a repeat costs a map lookup and the expiry check instead of an HMAC and a
 * JSON parse.
 */
const verified = new Map<string, Verified>()

const verifyOnce = (key: Uint8Array, token: string, audience: string, nowMillis: number): Verified | undefined => {
  const decoded = decode(key, token, audience, nowMillis)
  if (decoded === undefined) return undefined
  return {
    key,
    audience,
    caller: decoded.caller,
    identity: identityOf(decoded.caller),
    issuedAt: decoded.issuedAt,
    expiresAt: decoded.expiresAt
  }
}

/** A token's verified entry when it is signed with `key`, meant for `audience` and not expired. */
const check = (key: Uint8Array, token: string, audience: string, nowMillis: number): Verified | undefined => {
  const known = verified.get(token)
  if (known !== undefined && known.key === key && known.audience === audience) {
    return known.expiresAt > nowMillis && known.issuedAt <= nowMillis + LIFETIME_SECONDS * 1000 ? known : undefined
  }
  const fresh = verifyOnce(key, token, audience, nowMillis)
  if (fresh !== undefined) {
    if (verified.size >= MAX_VERIFIED) verified.clear()
    verified.set(token, fresh)
  }
  return fresh
}

/**
 * The caller a token carries when it is signed with `key`, meant for `audience`, not expired and
 * complete; else `undefined`. The signature is compared in constant time.
 */
export const verify = (key: Uint8Array, token: string, audience: string, nowMillis: number): Caller | undefined =>
  check(key, token, audience, nowMillis)?.caller

/** The identity headers of a caller (and the signed token) for an upstream. */
export const headersFor = (caller: Caller, token: string): Record<string, string> => {
  const identity = identityOf(caller)
  return {
    ...(identity.role === null ? {} : { [HEADERS.role]: identity.role }),
    ...(identity.userId === null ? {} : { [HEADERS.userId]: identity.userId }),
    ...(identity.platformId === null ? {} : { [HEADERS.platformId]: identity.platformId }),
    [HEADERS.token]: token
  }
}

const carries = (headers: Headers.Headers, identity: Identity): boolean =>
  headers[HEADERS.userId] === (identity.userId ?? undefined) &&
  headers[HEADERS.role] === (identity.role ?? undefined) &&
  headers[HEADERS.platformId] === (identity.platformId ?? undefined)

/**
 * The headers `trustedHeaders` vouched for, with the caller their token carries: `callerOf` reads
 * a caller from here only, never from a token it did not see verified for the service's audience.
 */
const trusted = new WeakMap<object, Caller>()

/**
 * The identity headers of a request as its service may trust them: when `X-Core-Identity` is a
 * valid token for `audience`, exactly the facts it signs (whatever the other headers say);
 * otherwise none at all.
 */
export const trustedHeaders = (
  headers: Headers.Headers,
  key: Uint8Array,
  audience: string,
  nowMillis: number
): Headers.Headers => {
  // Headers the gateway handed a caller with in this process are the gateway's own: nothing to verify.
  if (trusted.has(headers)) return headers
  const token = headers[HEADERS.token]
  const found = token === undefined ? undefined : check(key, token, audience, nowMillis)
  if (found !== undefined && carries(headers, found.identity)) {
    trusted.set(headers, found.caller)
    return headers
  }
  const without = Headers.remove(headers, IDENTITY_HEADERS as Array<string>)
  if (found === undefined) return without
  const signed = Headers.setAll(without, headersFor(found.caller, token!))
  trusted.set(signed, found.caller)
  return signed
}

/**
 * Wrap a service's app so that it only ever sees identity headers the gateway signed for it:
 * a request calling the service directly with a forged `X-Core-User-Id` reaches it without one.
 * Used in process and over HTTP alike.
 *
 * @example
 * const trusted = ForwardedIdentity.guard(app, { key: ForwardedIdentity.keyFrom(config.secret), audience: "iam" })
 */
export const guard = <E, R>(
  app: HttpApp.Default<E, R>,
  options: { readonly key: Uint8Array; readonly audience: string }
): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const headers = trustedHeaders(request.headers, options.key, options.audience, Date.now())
    return headers === request.headers
      ? app
      : Effect.provideService(app, HttpServerRequest.HttpServerRequest, request.modify({ headers }))
  })

/**
 * The caller the gateway resolved for a request: the one it handed over in this process
 * (`handOver`), or the one it signed, as `guard` verified it for the service's audience;
 * `undefined` when the request carries none (or did not pass through `guard`).
 */
export const callerOf = (request: HttpServerRequest.HttpServerRequest): Caller | undefined => trusted.get(request.headers)

/**
 * Hand an in-process service the caller of a request as a value, with the headers the gateway
 * forwards it (those very headers: the service's request must carry the same object): `callerOf`
 * reads it back, and `guard` lets them through as they are. Nothing is signed or verified; the
 * gateway has already taken the client's own `X-Core-*` headers off.
 *
 * @example
 * ForwardedIdentity.handOver(forwarded.headers, caller)
 */
export const handOver = (headers: object, caller: Caller): void => {
  trusted.set(headers, caller)
}
