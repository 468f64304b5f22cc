import { Headers, type HttpApp, HttpServerRequest } from "@effect/platform"
import { Effect, type Redacted } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"
import type { ApiKeyCaller, Caller, EffectiveRole, UserCaller } from "./Caller.js"
import { deriveKey } from "./Crypto.js"

/**
 * The caller the gateway forwards to a service (DESIGN §3 "One caller", §6): the whole kernel
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

/** How long a signed identity is valid. */
export const LIFETIME_SECONDS = 60

const ISSUER = "core-gateway"
const HEADER_SEGMENT = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url")

/** The longest token a service reads (a caller with every permission of the catalogue fits in a quarter). */
export const MAX_TOKEN_LENGTH = 8192

const MAX_PERMISSIONS = 256

/** The HS256 key of `X-Core-Identity`, derived from `CORE_SECRET` (the same in every process). */
export const keyFrom = (secret: Redacted.Redacted<string> | string): Uint8Array => deriveKey(secret, "gateway-identity")

const mac = (key: Uint8Array, input: string): Buffer => createHmac("sha256", key).update(input).digest()

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

/**
 * The claims of `X-Core-Identity`: `knd` the caller's kind, `sub` the user or key id (the
 * `X-Core-User-Id` value), `role` the `X-Core-Role` value, `plt` the platform, `sid` the session,
 * `eml` the user's email, `via` how its session arrived, `org` the organization, `prm` the
 * permissions (an API key's own, a user's in its organization).
 */
interface Claims {
  readonly iss: string
  readonly aud: string
  readonly knd: Caller["kind"]
  readonly sub?: string
  readonly role?: string
  readonly plt?: string
  readonly sid?: string
  readonly eml?: string
  readonly via?: UserCaller["via"]
  readonly org?: string
  readonly prm?: ReadonlyArray<string>
  readonly iat: number
  readonly exp: number
}

const claimsOf = (caller: Caller, withPermissions: boolean): Omit<Claims, "iss" | "aud" | "iat" | "exp"> => {
  switch (caller.kind) {
    case "service":
      return { knd: "service", role: "service" }
    case "apikey":
      return {
        knd: "apikey",
        sub: caller.keyId,
        role: "apikey",
        plt: caller.platformId,
        org: caller.organizationId,
        prm: caller.permissions
      }
    case "user":
      return {
        knd: "user",
        sub: caller.userId,
        ...(caller.role === undefined || caller.role === null ? {} : { role: caller.role }),
        ...(caller.platformId === undefined || caller.platformId === null ? {} : { plt: caller.platformId }),
        sid: caller.sessionId,
        eml: caller.email,
        via: caller.via,
        ...(caller.organizationId === null ? {} : { org: caller.organizationId }),
        ...(withPermissions && caller.permissions !== undefined ? { prm: caller.permissions } : {})
      }
  }
}

const encode = (key: Uint8Array, claims: Claims): string => {
  const input = `${HEADER_SEGMENT}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`
  return `${input}.${mac(key, input).toString("base64url")}`
}

/**
 * Sign a caller for one upstream (`audience`, the service's lower-case name): a compact HS256 JWT
 * valid `LIFETIME_SECONDS`. Only the caller's own fields are signed (a gateway principal's extra
 * facts are not). A user whose permissions would not fit is signed without them: services then
 * ask their `Callers` facts.
 *
 * @example
 * sign(key, { kind: "apikey", keyId: "key_1", organizationId: "org_1", platformId: "plt_1", permissions: [] }, "registry", Date.now())
 */
export const sign = (key: Uint8Array, caller: Caller, audience: string, nowMillis: number): string => {
  const iat = Math.floor(nowMillis / 1000)
  const token = encode(key, { iss: ISSUER, aud: audience, ...claimsOf(caller, true), iat, exp: iat + LIFETIME_SECONDS })
  if (token.length <= MAX_TOKEN_LENGTH || caller.kind !== "user") return token
  return encode(key, { iss: ISSUER, aud: audience, ...claimsOf(caller, false), iat, exp: iat + LIFETIME_SECONDS })
}

const isString = (value: unknown): value is string => typeof value === "string"
const optionalString = (value: unknown): value is string | undefined => value === undefined || typeof value === "string"
const ROLES: ReadonlySet<string> = new Set<EffectiveRole>(["owner", "admin", "member", "operator"])

const isPermissions = (value: unknown): value is ReadonlyArray<string> =>
  Array.isArray(value) && value.length <= MAX_PERMISSIONS && value.every(isString)

/** The caller claims describe, when they describe one completely. */
const callerOfClaims = (claims: Record<string, unknown>): Caller | undefined => {
  switch (claims.knd) {
    case "service":
      return claims.role === "service" ? { kind: "service" } : undefined
    case "apikey": {
      const { sub, org, plt, prm } = claims
      if (claims.role !== "apikey" || !isString(sub) || !isString(org) || !isString(plt) || !isPermissions(prm)) return undefined
      const caller: ApiKeyCaller = { kind: "apikey", keyId: sub, organizationId: org, platformId: plt, permissions: prm }
      return caller
    }
    case "user": {
      const { sub, sid, eml, via, org, plt, role, prm } = claims
      if (!isString(sub) || !isString(sid) || !isString(eml) || (via !== "bearer" && via !== "cookie")) return undefined
      if (!optionalString(org) || !optionalString(plt) || !(role === undefined || (isString(role) && ROLES.has(role)))) return undefined
      if (!(prm === undefined || isPermissions(prm))) return undefined
      const caller: UserCaller = {
        kind: "user",
        userId: sub,
        sessionId: sid,
        email: eml,
        organizationId: org ?? null,
        via,
        platformId: plt ?? null,
        role: (role as EffectiveRole | undefined) ?? null,
        ...(prm === undefined ? {} : { permissions: prm })
      }
      return caller
    }
    default:
      return undefined
  }
}

/** The checked claims of a token's payload segment, with the caller they describe. */
const parse = (segment: string): { readonly claims: Claims; readonly caller: Caller } | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, "base64url").toString("utf8"))
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined
    const claims = value as Record<string, unknown>
    if (claims.iss !== ISSUER || !isString(claims.aud) || typeof claims.iat !== "number" || typeof claims.exp !== "number") {
      return undefined
    }
    const caller = callerOfClaims(claims)
    return caller === undefined ? undefined : { claims: claims as unknown as Claims, caller }
  } catch {
    return undefined
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
  if (token.length > MAX_TOKEN_LENGTH) return undefined
  const parts = token.split(".")
  if (parts.length !== 3 || parts[0] !== HEADER_SEGMENT) return undefined
  const expected = mac(key, `${parts[0]}.${parts[1]}`)
  const presented = Buffer.from(parts[2], "base64url")
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined
  const parsed = parse(parts[1])
  if (parsed === undefined || parsed.claims.aud !== audience) return undefined
  const now = Math.floor(nowMillis / 1000)
  if (parsed.claims.exp <= now || parsed.claims.iat > now + LIFETIME_SECONDS) return undefined
  return {
    key,
    audience,
    caller: parsed.caller,
    identity: identityOf(parsed.caller),
    issuedAt: parsed.claims.iat * 1000,
    expiresAt: parsed.claims.exp * 1000
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
const trusted = new WeakMap<Headers.Headers, Caller>()

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
 * The caller the gateway signed for a request, as `guard` verified it for the service's audience;
 * `undefined` when the request carries none (or did not pass through `guard`).
 */
export const callerOf = (request: HttpServerRequest.HttpServerRequest): Caller | undefined =>
  request.headers[HEADERS.token] === undefined ? undefined : trusted.get(request.headers)

/** The trusted identity headers of the current request (after `guard`), if the gateway sent them. */
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
