/**
 * The token of `X-Core-Identity`: a caller's claims as a compact HS256 JWT for one audience,
 * signed by the gateway and checked by a service (signature in constant time, issuer, audience,
 * lifetime, and claims that describe a caller completely).
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import type { ApiKeyCaller, Caller, EffectiveRole, UserCaller } from "../Caller.js"

/** How long a signed identity is valid. */
export const LIFETIME_SECONDS = 60

const ISSUER = "core-gateway"
const HEADER_SEGMENT = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url")

/** The longest token a service reads (a caller with every permission of the catalogue fits in a quarter). */
export const MAX_TOKEN_LENGTH = 8192

const MAX_PERMISSIONS = 256

const mac = (key: Uint8Array, input: string): Buffer => createHmac("sha256", key).update(input).digest()

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

/** What a verified token says: the caller, and when it was issued and expires (in milliseconds). */
export interface Decoded {
  readonly caller: Caller
  readonly issuedAt: number
  readonly expiresAt: number
}

/** A token's caller when it is signed with `key`, meant for `audience`, not expired and complete. */
export const decode = (key: Uint8Array, token: string, audience: string, nowMillis: number): Decoded | undefined => {
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
    caller: parsed.caller,
    issuedAt: parsed.claims.iat * 1000,
    expiresAt: parsed.claims.exp * 1000
  }
}
