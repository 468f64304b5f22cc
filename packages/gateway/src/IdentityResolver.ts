import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { type EffectiveRole, ErrorResponse, type Unavailable, UpstreamUnavailable, type UpstreamTimeout } from "@core/kernel"
import { Effect, Redacted } from "effect"
import type { ApiKeyPrincipal, Principal, UserPrincipal } from "./CredentialCache.js"
import type { Upstream } from "./Upstream.js"

/**
 * Asks the identity service who a credential belongs to: `undefined` for a credential it
 * refuses (401), the principal otherwise. An identity service that cannot answer fails with
 * `UpstreamUnavailable` / `UpstreamTimeout`, so the gateway answers 502/504 rather than 401; one
 * that answers 503 (its database is down) fails with `Unavailable`: 503 with its `Retry-After`.
 */
export interface IdentityResolver {
  readonly session: (token: string) => Effect.Effect<Principal | undefined, IdentityFailure>
  readonly apiKey: (key: string) => Effect.Effect<Principal | undefined, IdentityFailure>
}

/** Why identity could not say who a credential belongs to. */
export type IdentityFailure = Unavailable | UpstreamUnavailable | UpstreamTimeout

/**
 * The parts of identity's answers the gateway reads (`Iam.CoreSessionResponse`,
 * `Iam.ApiKeyValidation`), read leniently: a field an older identity service leaves out gets its
 * neutral value.
 */
interface SessionAnswer {
  readonly session: { readonly id: string; readonly userId: string }
  readonly user?: { readonly email?: string }
  readonly permissions?: ReadonlyArray<string>
  readonly tenant: {
    readonly organizationId: string | null
    readonly platformId: string | null
    readonly platformStatus: string | null
  }
  readonly role: EffectiveRole | null
}

interface KeyAnswer {
  readonly keyId: string
  readonly organizationId: string
  readonly platformId: string
  readonly permissions?: ReadonlyArray<string>
  readonly platformStatus: string
}

/** The principal of a session answer: the kernel's user caller with its tenant, role and permissions. */
export const sessionPrincipal = (answer: SessionAnswer): UserPrincipal => ({
  kind: "user",
  userId: answer.session.userId,
  sessionId: answer.session.id,
  email: answer.user?.email ?? "",
  organizationId: answer.tenant.organizationId,
  via: "bearer",
  platformId: answer.tenant.platformId,
  role: answer.role ?? null,
  permissions: answer.permissions ?? [],
  platformStatus: answer.tenant.platformStatus
})

/** The principal of a key validation answer: the kernel's API key caller with its platform's status. */
export const apiKeyPrincipal = (answer: KeyAnswer): ApiKeyPrincipal => ({
  kind: "apikey",
  keyId: answer.keyId,
  organizationId: answer.organizationId,
  platformId: answer.platformId,
  permissions: answer.permissions ?? [],
  platformStatus: answer.platformStatus
})

const unavailable = () => new UpstreamUnavailable({ message: "The identity service could not check the credentials", upstream: "IAM" })

/**
 * Identity answered 503: what it cannot serve without is down (decision 0572). The gateway's own
 * dependency, so the caller gets 503 and identity's `Retry-After`, not an upstream's 502.
 */
const identityUnavailable = (retryAfter: string | undefined) =>
  ErrorResponse.dependencyUnavailable("identity", /^[1-9]\d{0,4}$/.test(retryAfter ?? "") ? Number(retryAfter) : undefined)

/** Call one identity route through the upstream and read its JSON answer (`undefined` on 401). */
const ask = <A>(
  iam: Upstream,
  path: string,
  init: { readonly method: string; readonly headers: Record<string, string>; readonly body?: string }
): Effect.Effect<A | undefined, IdentityFailure> =>
  Effect.scoped(
    Effect.gen(function*() {
      const request = HttpServerRequest.fromWeb(new Request(`http://iam.internal${path}`, init))
      const response = yield* iam.forward(request)
      if (response.status === 401) return undefined
      if (response.status === 503) return yield* identityUnavailable(response.headers["retry-after"])
      if (response.status !== 200) return yield* unavailable()
      const runtime = yield* Effect.runtime<never>()
      const text = yield* Effect.tryPromise({
        try: () => HttpServerResponse.toWeb(response, { runtime }).text(),
        catch: unavailable
      })
      return yield* Effect.try({ try: () => JSON.parse(text) as A, catch: unavailable })
    })
  )

/**
 * The resolver over the identity service's upstream (in process or over HTTP):
 * `GET /api/core/session` with the token as a bearer, and `POST /api/core/apikey/validate`
 * presenting the static key when one is configured.
 */
export const viaUpstream = (iam: Upstream, staticKey: Redacted.Redacted<string> | undefined): IdentityResolver => ({
  session: (token) =>
    Effect.map(
      ask<SessionAnswer>(iam, "/api/core/session", { method: "GET", headers: { authorization: `Bearer ${token}` } }),
      (answer): Principal | undefined => (answer === undefined ? undefined : sessionPrincipal(answer))
    ),
  apiKey: (key) =>
    Effect.map(
      ask<KeyAnswer>(iam, "/api/core/apikey/validate", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(staticKey === undefined ? {} : { authorization: `Bearer ${Redacted.value(staticKey)}` })
        },
        body: JSON.stringify({ key })
      }),
      (answer): Principal | undefined => (answer === undefined ? undefined : apiKeyPrincipal(answer))
    )
})
