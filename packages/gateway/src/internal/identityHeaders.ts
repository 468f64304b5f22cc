/**
 * The caller the gateway hands an in-process upstream as a value, and the identity headers it
 * sends one in another process instead, signed per audience and reused for half their lifetime.
 */
import { type Caller, ForwardedIdentity } from "@core/kernel"
import type { Principal } from "../CredentialCache.js"

/** The callers of principals, by the way a session's token arrived (a principal's `via` is `bearer`). */
const callers = new WeakMap<Principal, Caller>()
const cookieCallers = new WeakMap<Principal, Caller>()

/** The kernel caller a principal is, without the gateway's own `platformStatus`: what a signed token carries. */
const callerFrom = (principal: Principal, viaCookie: boolean): Caller => {
  if (principal.kind === "service") return principal
  const { platformStatus: _, ...caller } = principal
  return caller.kind === "user" ? { ...caller, via: viaCookie ? "cookie" : "bearer" } : caller
}

/**
 * The kernel caller a principal is, the session's `via` the way its token arrived: exactly the
 * caller a signed `X-Core-Identity` of it verifies to, made once per cached principal.
 */
export const callerOf = (principal: Principal, viaCookie: boolean): Caller => {
  const byWay = viaCookie && principal.kind === "user" ? cookieCallers : callers
  let caller = byWay.get(principal)
  if (caller === undefined) {
    caller = callerFrom(principal, viaCookie)
    byWay.set(principal, caller)
  }
  return caller
}

interface Signed {
  readonly headers: Record<string, string>
  readonly until: number
}

/** Signed headers by principal and audience, for sessions presented as a bearer (and keys, and the service) … */
const signed = new WeakMap<Principal, Map<string, Signed>>()
/** … and for sessions presented as the cookie (the signed caller says `via: "cookie"`). */
const signedForCookie = new WeakMap<Principal, Map<string, Signed>>()

/**
 * The identity headers of a principal for one audience: the kernel caller it is, signed whole
 * (`ForwardedIdentity.sign`; the gateway's own `platformStatus` is not), the session's `via` the
 * way its token arrived. The token is reused for half its lifetime (signing costs per request).
 */
export const identityHeadersFor = (
  key: Uint8Array,
  principal: Principal,
  viaCookie: boolean,
  audience: string,
  now: number
): Record<string, string> => {
  const cookie = viaCookie && principal.kind === "user"
  const byPrincipal = cookie ? signedForCookie : signed
  let byAudience = byPrincipal.get(principal)
  if (byAudience === undefined) {
    byAudience = new Map<string, Signed>()
    byPrincipal.set(principal, byAudience)
  }
  const known = byAudience.get(audience)
  if (known !== undefined && known.until > now) return known.headers
  const caller = principal.kind === "user" ? { ...principal, via: cookie ? "cookie" as const : "bearer" as const } : principal
  const headers = ForwardedIdentity.headersFor(caller, ForwardedIdentity.sign(key, caller, audience, now))
  byAudience.set(audience, { headers, until: now + (ForwardedIdentity.LIFETIME_SECONDS * 1000) / 2 })
  return headers
}
