import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Iam } from "@core/contracts"
import { ErrorResponse, type Unavailable, UpstreamUnavailable, type UpstreamTimeout } from "@core/kernel"
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
 * The parts of identity's answers the gateway reads, decoded with the contract's own schemas
 * (`Iam.CoreSessionResponse`, `Iam.ApiKeyValidation`, narrowed to those fields): an answer that
 * does not match is identity failing to answer (502), never a principal.
 */
export const SessionFacts = Iam.CoreSessionResponse.pick({ permissions: true, role: true }).extend({
  session: Iam.Session.pick({ id: true, userId: true }),
  user: Iam.User.pick({ email: true }),
  tenant: Iam.TenantContext.pick({ organizationId: true, platformId: true, platformStatus: true })
})

/** The fields of a key validation the gateway reads. */
export const KeyFacts = Iam.ApiKeyValidation.pick({
  keyId: true,
  organizationId: true,
  platformId: true,
  permissions: true,
  platformStatus: true
})

type SessionAnswer = ReturnType<typeof SessionFacts.parse>
type KeyAnswer = ReturnType<typeof KeyFacts.parse>

/**
 * The identity service in the gateway's process, asked as values (what `GET /api/core/session`
 * and `POST /api/core/apikey/validate` answer, with no request built): `undefined` for a
 * credential it refuses. `@core/auth` makes one (`GatewayIdentity`) over its own services.
 */
export interface InProcessIdentity {
  readonly session: (token: string) => Effect.Effect<Iam.CoreSessionResponse | undefined, Unavailable>
  readonly apiKey: (key: string) => Effect.Effect<Iam.ApiKeyValidation | undefined, Unavailable>
}

/** The principal of a session answer: the kernel's user caller with its tenant, role and permissions. */
export const sessionPrincipal = (answer: SessionAnswer): UserPrincipal => ({
  kind: "user",
  userId: answer.session.userId,
  sessionId: answer.session.id,
  email: answer.user.email,
  organizationId: answer.tenant.organizationId,
  via: "bearer",
  platformId: answer.tenant.platformId,
  role: answer.role,
  permissions: answer.permissions,
  platformStatus: answer.tenant.platformStatus
})

/** The principal of a key validation answer: the kernel's API key caller with its platform's status. */
export const apiKeyPrincipal = (answer: KeyAnswer): ApiKeyPrincipal => ({
  kind: "apikey",
  keyId: answer.keyId,
  organizationId: answer.organizationId,
  platformId: answer.platformId,
  permissions: answer.permissions,
  platformStatus: answer.platformStatus
})

const unavailable = () => new UpstreamUnavailable({ message: "The identity service could not check the credentials", upstream: "IAM" })

/**
 * Identity answered 503: what it cannot serve without is down (decision 0572). The gateway's own
 * dependency, so the caller gets 503 and identity's `Retry-After`, not an upstream's 502.
 */
const identityUnavailable = (retryAfter: string | undefined) =>
  ErrorResponse.dependencyUnavailable("identity", /^[1-9]\d{0,4}$/.test(retryAfter ?? "") ? Number(retryAfter) : undefined)

/** Call one identity route through the upstream and decode its JSON answer (`undefined` on 401). */
const ask = <A>(
  iam: Upstream,
  path: string,
  init: { readonly method: string; readonly headers: Record<string, string>; readonly body?: string },
  schema: { readonly safeParse: (value: unknown) => { readonly success: true; readonly data: A } | { readonly success: false } }
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
      const parsed = schema.safeParse(yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: unavailable }))
      return parsed.success ? parsed.data : yield* unavailable()
    })
  )

/**
 * The resolver over the identity service in this process: its answers taken as values, with no
 * request made (what `core-server start` runs).
 */
export const inProcess = (identity: InProcessIdentity): IdentityResolver => ({
  session: (token) => Effect.map(identity.session(token), (answer) => (answer === undefined ? undefined : sessionPrincipal(answer))),
  apiKey: (key) => Effect.map(identity.apiKey(key), (answer) => (answer === undefined ? undefined : apiKeyPrincipal(answer)))
})

/**
 * The resolver over the identity service's upstream (another process, or an app the gateway is
 * given without its services):
 * `GET /api/core/session` with the token as a bearer, and `POST /api/core/apikey/validate`
 * presenting the static key when one is configured.
 */
export const viaUpstream = (iam: Upstream, staticKey: Redacted.Redacted<string> | undefined): IdentityResolver => ({
  session: (token) =>
    Effect.map(
      ask(iam, "/api/core/session", { method: "GET", headers: { authorization: `Bearer ${token}` } }, SessionFacts),
      (answer): Principal | undefined => (answer === undefined ? undefined : sessionPrincipal(answer))
    ),
  apiKey: (key) =>
    Effect.map(
      ask(iam, "/api/core/apikey/validate", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(staticKey === undefined ? {} : { authorization: `Bearer ${Redacted.value(staticKey)}` })
        },
        body: JSON.stringify({ key })
      }, KeyFacts),
      (answer): Principal | undefined => (answer === undefined ? undefined : apiKeyPrincipal(answer))
    )
})
