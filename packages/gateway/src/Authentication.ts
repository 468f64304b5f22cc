import type { Headers } from "@effect/platform"
import { Iam } from "@core/contracts"
import { Crypto, ErrorResponse, Forbidden, ForwardedIdentity, PlatformSuspended, Policy, Unauthorized } from "@core/kernel"
import { Effect, Redacted } from "effect"
import { timingSafeEqual } from "node:crypto"
import { type CredentialCache, type Invalidation, parseInvalidation, type Principal } from "./CredentialCache.js"
import type { IdentityResolver } from "./IdentityResolver.js"
import { callerOf, identityHeadersFor } from "./internal/identityHeaders.js"
import { type Exchange, type Frame, type Guard, type Head, toEffect, type Verdict } from "./Middleware.js"
import { isUnder, type ServiceName } from "./Routes.js"

/** The cookie a browser's session travels in. */
export const SESSION_COOKIE = "core.session_token"

/** The response header in which the identity service names what a change invalidates. */
export const INVALIDATE_HEADER = "x-core-invalidate"

const SIGN_OUT = "/api/v1/iam/api/auth/sign-out"

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

/** A credential as presented, before it is checked. */
export type Presented =
  | { readonly kind: "none" }
  | { readonly kind: "bearer"; readonly token: string }
  | { readonly kind: "cookie"; readonly token: string }
  | { readonly kind: "apikey"; readonly key: string }

const MAX_CREDENTIAL_LENGTH = 4096

const cookieToken = (cookie: string | undefined): string | undefined => {
  if (cookie === undefined) return undefined
  for (const part of cookie.split(";")) {
    const at = part.indexOf("=")
    if (at !== -1 && part.slice(0, at).trim() === SESSION_COOKIE) {
      const value = part.slice(at + 1).trim()
      return value === "" ? undefined : value
    }
  }
  return undefined
}

/**
 * The credential of a request: `x-api-key` first, then `Authorization: Bearer`, then the session
 * cookie (a bearer wins over the cookie, as in the identity service).
 */
export const presented = (headers: Headers.Headers): Presented => {
  const key = headers["x-api-key"]
  if (key !== undefined) return { kind: "apikey", key: key.trim() }
  const authorization = headers.authorization
  if (authorization !== undefined) {
    const found = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    if (found !== null) return { kind: "bearer", token: found[1] }
  }
  const token = cookieToken(headers.cookie)
  return token === undefined ? { kind: "none" } : { kind: "cookie", token }
}

/**
 * Whether a request comes from another site (docs/gateway.md): its `Origin` is neither the gateway's own
 * nor an allowed one, or the browser says `Sec-Fetch-Site: cross-site`. Clients sending neither
 * header are not browsers acting for another site.
 */
const isCrossSite = (request: Exchange, isAllowedOrigin: (origin: string, request: Exchange) => boolean): boolean => {
  if (request.headers["sec-fetch-site"] === "cross-site") return true
  const origin = request.headers.origin
  return origin !== undefined && !isAllowedOrigin(origin, request)
}

/**
 * Whether a write (any method but `GET`, `HEAD` and `OPTIONS`) comes from another site. The
 * authentication step asks the request's catalogue rule (`crossSiteCheck`) instead of the method;
 * the catalogue declares no exception, so the two agree.
 */
export const isCrossSiteWrite = (
  request: Exchange,
  isAllowedOrigin: (origin: string, request: Exchange) => boolean
): boolean => !SAFE_METHODS.has(request.method) && isCrossSite(request, isAllowedOrigin)

/** What the authentication step needs. */
export interface AuthenticationOptions {
  /** The static service key; unset means the development bypass. */
  readonly staticKey: Redacted.Redacted<string> | undefined
  readonly resolver: IdentityResolver
  readonly cache: CredentialCache
  /** The key that signs `X-Core-Identity` (`ForwardedIdentity.keyFrom(CORE_SECRET)`). */
  readonly identityKey: Uint8Array
  /**
   * Whether the caller is signed into identity headers for a service's upstream: only for one that
   * reads them (another process, a web-standard handler). One that takes the caller as a value
   * (`Upstream.callerByValue`: the gateway hands it over, nothing is signed) is left out.
   * @default every service
   */
  readonly signsFor?: (service: ServiceName) => boolean
  /** Whether an `Origin` may make cookie-authenticated writes (the gateway's own, or allowed). */
  readonly isAllowedOrigin: (origin: string, request: Exchange) => boolean
  /** Counts cache hits and misses (metrics). */
  readonly onCacheLookup?: (hit: boolean) => void
  /**
   * The public root a request was sent to (`CORE_PUBLIC_URL`, else its origin): where a protected
   * resource's metadata lies, named in its 401s. @default the request's `Host`
   */
  readonly publicRootOf?: (request: Exchange) => string
  /** Why a request to a route with `checksHost` is refused (`HostCheck.policy`), or `undefined`. @default none refused */
  readonly hostRefusal?: (request: Exchange) => string | undefined
}

/** The seed's forwarded header facts of a principal (docs/gateway.md). */
export const identityOf = (principal: Principal): ForwardedIdentity.Identity => ForwardedIdentity.identityOf(principal)

const SERVICE: Principal = { kind: "service" }

/**
 * Step 9: authenticate every `/api/*` request (and `/mcp`, the vault's). The static key (constant time) makes the caller
 * the service; a session (bearer or cookie) or an `x-api-key` is checked with the identity
 * service through the cache. A wrong credential is refused (401) even where none is needed, except
 * on public routes, which then pass without an identity; a missing one is refused unless the route
 * is public or the development bypass is on. A route is public when the catalogue declares it so
 * (`frame.rule`, from `RouteRules`: identity's sign-up, sign-in, magic links, password reset and
 * its link, email verification, the OAuth device and token endpoints and metadata, the JWKS, the
 * pages; the OpenAPI documents); `/health`, `/ready`, `/metrics` and the pages at the root are
 * outside `/api/*` and never authenticated. A cookie-authenticated write from another site is
 * refused (403) where the rule says `crossSiteCheck` (every method but GET, HEAD and OPTIONS, unless
 * the service checks it itself). A route with `checksHost` refuses another site's `Host` or
 * `Origin` first (403, DNS rebinding); a route with `resourceMetadata` names it in its 401s.
 * The caller travels upstream signed whole in `X-Core-Identity` (kind, user or key, session,
 * organization, platform, role, permissions), with the seed's `X-Core-User-Id`, `X-Core-Role` and
 * `X-Core-Platform-Id` derived from it. A change the identity
 * service reports in `X-Core-Invalidate` (and any sign-out) drops the cached answers it affects.
 */
export const middleware = (options: AuthenticationOptions): Guard => {
  const staticDigest = options.staticKey === undefined ? undefined : Crypto.sha256(Redacted.value(options.staticKey))
  const bypass = staticDigest === undefined

  /** Resolve a credential and keep the answer, refusals included. */
  const fill = (hash: string, resolve: () => Effect.Effect<Principal | undefined, unknown>) =>
    Effect.tap(resolve(), (principal) => options.cache.set(hash, principal ?? null))

  /**
   * A credential's principal from the cache (synchronously when the cache is in memory, with
   * `peek`), else resolved and cached.
   */
  const cached = (
    hash: string,
    resolve: () => Effect.Effect<Principal | undefined, unknown>
  ): Principal | undefined | Effect.Effect<Principal | undefined, unknown> => {
    const { peek } = options.cache
    if (peek !== undefined) {
      const known = peek(hash)
      options.onCacheLookup?.(known !== undefined)
      return known === undefined ? fill(hash, resolve) : known ?? undefined
    }
    return Effect.flatMap(options.cache.get(hash), (hit) => {
      options.onCacheLookup?.(hit !== undefined)
      return hit === undefined ? fill(hash, resolve) : Effect.succeed(hit ?? undefined)
    })
  }

  /**
   * The principal of a credential. A bearer is hashed once: the digest is compared with the static
   * key's in constant time, and its hex is the cache key.
   */
  const resolve = (credential: Presented): Principal | undefined | Effect.Effect<Principal | undefined, unknown> => {
    switch (credential.kind) {
      case "none":
        return undefined
      case "apikey":
        return credential.key.length > MAX_CREDENTIAL_LENGTH || !Iam.API_KEY_PATTERN.test(credential.key)
          ? Effect.fail(new Unauthorized({ message: "Invalid API key: expected x-api-key: core_<key>" }))
          : cached(Crypto.sha256Hex(credential.key), () => options.resolver.apiKey(credential.key))
      case "bearer":
      case "cookie": {
        if (credential.token.length > MAX_CREDENTIAL_LENGTH) return undefined
        const digest = Crypto.sha256(credential.token)
        if (credential.kind === "bearer" && staticDigest !== undefined && timingSafeEqual(digest, staticDigest)) return SERVICE
        return cached(digest.toString("hex"), () => options.resolver.session(credential.token))
      }
    }
  }

  const refusal = (credential: Presented) =>
    new Unauthorized({
      message: credential.kind === "none"
        ? Policy.AUTHENTICATION_REQUIRED
        : credential.kind === "apikey"
        ? "Invalid or revoked API key"
        : "Invalid or expired session"
    })

  /**
   * After the response's head: drop what `X-Core-Invalidate` names; a user's cached answers after
   * a successful write the catalogue declares `changesTenant` (organization setup, the active
   * organization, memberships, roles, grants; other members it affects see the change within the
   * cache's lifetime); the presented credential after sign-out.
   */
  const afterResponse = (
    frame: Frame,
    principal: Principal | undefined,
    credential: Presented,
    head: Head
  ): Effect.Effect<void> | undefined => {
    const header = head.get(INVALIDATE_HEADER)
    const invalidations: Array<Invalidation> = []
    if (header !== undefined) {
      invalidations.push(parseInvalidation(header))
      head.remove(INVALIDATE_HEADER)
    }
    if (principal?.kind === "user" && head.status < 400 && frame.rule.changesTenant) {
      invalidations.push({ userId: principal.userId })
    }
    if (frame.pathname === SIGN_OUT && (credential.kind === "bearer" || credential.kind === "cookie")) {
      invalidations.push({ credential: Crypto.sha256Hex(credential.token) })
    }
    return invalidations.length === 0 ? undefined : Effect.forEach(invalidations, options.cache.invalidate, { discard: true })
  }

  const admit = (
    request: Exchange,
    frame: Frame,
    credential: Presented,
    open: boolean,
    principal: Principal | undefined
  ): Verdict | Effect.Effect<never, Unauthorized | Forbidden> => {
    frame.after.push((head) => afterResponse(frame, principal, credential, head))
    if (principal === undefined) {
      return open || (bypass && credential.kind === "none") ? undefined : Effect.fail(refusal(credential))
    }
    if (credential.kind === "cookie" && frame.rule.crossSiteCheck && isCrossSite(request, options.isAllowedOrigin)) {
      return Effect.fail(new Forbidden({ message: "Cross-site request refused: this write is authenticated by a cookie" }))
    }
    frame.principal = principal
    const viaCookie = credential.kind === "cookie"
    frame.caller = callerOf(principal, viaCookie)
    const service = frame.match?.route.service
    if (service !== undefined && signsFor(service)) {
      Object.assign(
        frame.upstreamHeaders,
        identityHeadersFor(options.identityKey, principal, viaCookie, service.toLowerCase(), request.now)
      )
    }
    return undefined
  }

  const signsFor = options.signsFor ?? (() => true)
  const publicRootOf = options.publicRootOf ?? ((request: Exchange) => `http://${request.headers.host ?? "localhost"}`)

  return (request, frame) => {
    // Outside `/api` only a routed prefix (the vault's `/mcp`) is authenticated.
    if (!isUnder(frame.pathname, "/api") && frame.match === undefined) return undefined
    const route = frame.match?.route
    if (route?.checksHost === true) {
      const refused = options.hostRefusal?.(request)
      if (refused !== undefined) return Effect.fail(new Forbidden({ message: refused }))
    }
    if (route?.resourceMetadata !== undefined) {
      frame.challenge = ErrorResponse.bearerChallenge(`${publicRootOf(request)}${route.resourceMetadata}`)
    }
    const credential = presented(request.headers)
    const open = frame.rule.public
    const principal = resolve(credential)
    if (!Effect.isEffect(principal)) return admit(request, frame, credential, open, principal)
    return Effect.flatMap(
      open ? Effect.orElseSucceed(principal, () => undefined) : principal,
      (resolved) => toEffect(admit(request, frame, credential, open, resolved))
    )
  }
}

/**
 * Step 10: a caller whose platform is suspended gets 451 `PLATFORM_SUSPENDED`, except the service
 * and the routes whose rule is `suspensionExempt` (declared `suspension: "exempt"` in the
 * catalogue: sign-out, get-session; or under a prefix the routing table exempts: billing).
 */
export const suspension: Guard = (_request, frame) => {
  const principal = frame.principal
  if (principal === undefined || principal.kind === "service") return undefined
  const { platformId, platformStatus } = principal
  if (platformStatus !== "suspended" || platformId === null || frame.rule.suspensionExempt) return undefined
  return Effect.fail(new PlatformSuspended({ message: `Platform ${platformId} has been suspended`, platformId }))
}
