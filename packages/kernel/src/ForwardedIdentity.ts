import { Headers, type HttpApp, HttpServerRequest } from "@effect/platform"
import { Effect, type Redacted } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"
import { deriveKey } from "./Crypto.js"

/**
 * Who the gateway says is calling: the facts it forwards as `X-Core-User-Id`, `X-Core-Role` and
 * `X-Core-Platform-Id`. For a session the user id, the effective role and the platform; for an API
 * key the key id as user, role `apikey` and the key's platform; for the static key role `service`
 * and nothing else.
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

/** How long a signed identity is valid. */
export const LIFETIME_SECONDS = 60

const ISSUER = "core-gateway"
const HEADER_SEGMENT = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url")

/** The HS256 key of `X-Core-Identity`, derived from `CORE_SECRET` (the same in every process). */
export const keyFrom = (secret: Redacted.Redacted<string> | string): Uint8Array => deriveKey(secret, "gateway-identity")

const mac = (key: Uint8Array, input: string): Buffer => createHmac("sha256", key).update(input).digest()

interface Claims {
  readonly iss: string
  readonly aud: string
  readonly sub?: string
  readonly role?: string
  readonly plt?: string
  readonly iat: number
  readonly exp: number
}

/**
 * Sign an identity for one upstream (`audience`, the service's lower-case name): a compact
 * HS256 JWT valid `LIFETIME_SECONDS`.
 *
 * @example
 * sign(key, { userId: "usr_1", role: "admin", platformId: "plt_1" }, "iam", Date.now())
 */
export const sign = (key: Uint8Array, identity: Identity, audience: string, nowMillis: number): string => {
  const iat = Math.floor(nowMillis / 1000)
  const claims: Claims = {
    iss: ISSUER,
    aud: audience,
    ...(identity.userId === null ? {} : { sub: identity.userId }),
    ...(identity.role === null ? {} : { role: identity.role }),
    ...(identity.platformId === null ? {} : { plt: identity.platformId }),
    iat,
    exp: iat + LIFETIME_SECONDS
  }
  const input = `${HEADER_SEGMENT}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`
  return `${input}.${mac(key, input).toString("base64url")}`
}

const MAX_TOKEN_LENGTH = 2048

const parseClaims = (segment: string): Claims | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, "base64url").toString("utf8"))
    if (typeof value !== "object" || value === null) return undefined
    const claims = value as Record<string, unknown>
    const optionalString = (field: unknown) => field === undefined || typeof field === "string"
    const valid = claims.iss === ISSUER && typeof claims.aud === "string" && optionalString(claims.role) &&
      typeof claims.iat === "number" && typeof claims.exp === "number" && optionalString(claims.sub) &&
      optionalString(claims.plt)
    return valid ? (claims as unknown as Claims) : undefined
  } catch {
    return undefined
  }
}

/**
 * The identity a token carries when it is signed with `key`, meant for `audience` and not
 * expired; else `undefined`. The signature is compared in constant time.
 */
export const verify = (key: Uint8Array, token: string, audience: string, nowMillis: number): Identity | undefined => {
  const known = verified.get(token)
  if (known !== undefined && known.key === key && known.audience === audience) {
    return known.expiresAt > nowMillis && known.issuedAt <= nowMillis + LIFETIME_SECONDS * 1000 ? known.identity : undefined
  }
  const identity = verifyOnce(key, token, audience, nowMillis)
  if (identity !== undefined) remember(token, key, audience, identity)
  return identity
}

interface Verified {
  readonly key: Uint8Array
  readonly audience: string
  readonly identity: Identity
  readonly issuedAt: number
  readonly expiresAt: number
}

const MAX_VERIFIED = 10_000

/**
 * Tokens already verified, by their exact text (the gateway reuses one per caller and service for
 * half its lifetime): a repeat costs a map lookup and the expiry check instead of an HMAC.
 */
const verified = new Map<string, Verified>()

const remember = (token: string, key: Uint8Array, audience: string, identity: Identity) => {
  if (verified.size >= MAX_VERIFIED) verified.clear()
  const claims = parseClaims(token.split(".")[1])!
  verified.set(token, { key, audience, identity, issuedAt: claims.iat * 1000, expiresAt: claims.exp * 1000 })
}

const verifyOnce = (key: Uint8Array, token: string, audience: string, nowMillis: number): Identity | undefined => {
  if (token.length > MAX_TOKEN_LENGTH) return undefined
  const parts = token.split(".")
  if (parts.length !== 3 || parts[0] !== HEADER_SEGMENT) return undefined
  const expected = mac(key, `${parts[0]}.${parts[1]}`)
  const presented = Buffer.from(parts[2], "base64url")
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined
  const claims = parseClaims(parts[1])
  if (claims === undefined || claims.aud !== audience) return undefined
  const now = Math.floor(nowMillis / 1000)
  if (claims.exp <= now || claims.iat > now + LIFETIME_SECONDS) return undefined
  return { userId: claims.sub ?? null, role: claims.role ?? null, platformId: claims.plt ?? null }
}

/** The identity headers (and the signed token) for an upstream. */
export const headersFor = (identity: Identity, token: string): Record<string, string> => ({
  ...(identity.role === null ? {} : { [HEADERS.role]: identity.role }),
  ...(identity.userId === null ? {} : { [HEADERS.userId]: identity.userId }),
  ...(identity.platformId === null ? {} : { [HEADERS.platformId]: identity.platformId }),
  [HEADERS.token]: token
})

const carries = (headers: Headers.Headers, identity: Identity): boolean =>
  headers[HEADERS.userId] === (identity.userId ?? undefined) &&
  headers[HEADERS.role] === (identity.role ?? undefined) &&
  headers[HEADERS.platformId] === (identity.platformId ?? undefined)

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
  const token = headers[HEADERS.token]
  const identity = token === undefined ? undefined : verify(key, token, audience, nowMillis)
  if (identity !== undefined && carries(headers, identity)) return headers
  const without = Headers.remove(headers, IDENTITY_HEADERS as Array<string>)
  return identity === undefined ? without : Headers.setAll(without, headersFor(identity, token!))
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

/** The trusted identity of the current request (after `guard`), if the gateway sent one. */
export const current: Effect.Effect<Identity | undefined, never, HttpServerRequest.HttpServerRequest> = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => {
    if (request.headers[HEADERS.token] === undefined) return undefined
    return {
      userId: request.headers[HEADERS.userId] ?? null,
      role: request.headers[HEADERS.role] ?? null,
      platformId: request.headers[HEADERS.platformId] ?? null
    }
  }
)
