import { Iam } from "@core/contracts"
import { type Caller, Callers, type Conflict, type Forbidden, type NotFound, Route, type Unauthorized, type ValidationError } from "@core/kernel"
import { HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"
import { AccessLive } from "./AccessLive.js"
import { ApiKeys } from "./ApiKeys.js"
import { Audit, AuditLogLive } from "../audit/Audit.js"
import { Delegation } from "./Delegation.js"
import { Grants } from "./Grants.js"
import { PlatformStatus } from "./PlatformStatus.js"
import { RoleMappings } from "./RoleMappings.js"
import { ServiceTokens } from "./ServiceTokens.js"
import { invalidates } from "../internal/Invalidate.js"

const Routes = Iam.AuthorizationRoutes

/** What the authorization handlers may fail with (the kernel's table turns each into its status). */
export type AuthorizationError = Route.RouteError | Unauthorized | Forbidden | NotFound | Conflict | ValidationError

/** The services the authorization handlers call. */
export type AuthorizationServices = RoleMappings | Grants | ApiKeys | ServiceTokens | PlatformStatus | Audit | Callers

/** Answers that carry a secret or one caller's state are never cached. */
const noStore = { "cache-control": "no-store" }

/** The audit log, read the same way at its three paths. */
const readAudit = (caller: Caller, query: Iam.ListAuditQuery) =>
  Effect.gen(function*() {
    const audit = yield* Audit
    return yield* audit.list(caller, query)
  })

/**
 * The authorization routes of the identity service, one per entry of `Iam.AuthorizationRoutes`:
 * role mappings, grants, API keys, service tokens and JWKS, platform status, and the audit log.
 * The services decide who may act (`Access`, `Delegation`); these only map inputs and answers.
 */
export const AuthorizationHandlers: ReadonlyArray<Route.Handler<AuthorizationError, AuthorizationServices>> = [
  Route.handle(Routes.listRoleMappings, ({ caller, query }) =>
    Effect.gen(function*() {
      const roles = yield* RoleMappings
      return { data: [...yield* roles.list(caller, query.orgId)] }
    })),
  Route.handle(Routes.upsertRoleMapping, ({ body, caller }) =>
    Effect.gen(function*() {
      const roles = yield* RoleMappings
      return yield* roles.upsert(caller, body)
    })),
  Route.handle(Routes.deleteRoleMapping, ({ caller, params }) =>
    Effect.gen(function*() {
      const roles = yield* RoleMappings
      yield* roles.remove(caller, params.orgId, params.role)
    })),
  Route.handle(Routes.listGrants, ({ caller, query }) =>
    Effect.gen(function*() {
      const grants = yield* Grants
      return { data: [...yield* grants.list(caller, query)] }
    })),
  Route.handle(Routes.createGrant, ({ body, caller }) =>
    Effect.gen(function*() {
      const grants = yield* Grants
      return yield* grants.create(caller, body)
    })),
  Route.handle(Routes.deleteGrant, ({ caller, params }) =>
    Effect.gen(function*() {
      const grants = yield* Grants
      yield* grants.remove(caller, params.id)
    })),
  Route.handle(Routes.createApiKey, ({ body, caller }) =>
    Effect.gen(function*() {
      const keys = yield* ApiKeys
      return Route.json(yield* keys.create(caller, body), { status: 201, headers: noStore })
    })),
  Route.handle(Routes.listApiKeys, ({ caller, query }) =>
    Effect.gen(function*() {
      const keys = yield* ApiKeys
      return { data: [...yield* keys.list(caller, query.organizationId)] }
    })),
  Route.handle(Routes.revokeApiKey, ({ caller, params }) =>
    Effect.gen(function*() {
      const keys = yield* ApiKeys
      const revoked = yield* keys.revoke(caller, params.id)
      // The keys revoked with it share its platform: dropping the platform's cached answers at the
      // gateway drops theirs, however many there are (one `key=` part names one key).
      return invalidates(HttpServerResponse.empty({ status: 204 }), {
        keyId: params.id,
        ...(revoked.descendants.length === 0 ? {} : { platformId: revoked.platformId })
      })
    })),
  // Declared public: the development bypass lets anyone validate, so the caller is resolved here.
  Route.handle(Routes.validateApiKey, ({ body, request }) =>
    Effect.gen(function*() {
      const callers = yield* Callers
      const keys = yield* ApiKeys
      yield* keys.requireValidator(yield* Effect.orElseSucceed(callers.resolve(request), () => undefined))
      return Route.json(yield* keys.validate(body.key), { headers: noStore })
    })),
  Route.handle(Routes.issueServiceToken, ({ body, caller }) =>
    Effect.gen(function*() {
      const tokens = yield* ServiceTokens
      return Route.json(yield* tokens.issue(caller, body), { headers: noStore })
    })),
  Route.handle(Routes.jwks, () =>
    Effect.gen(function*() {
      const tokens = yield* ServiceTokens
      return Route.json(yield* tokens.jwks, { headers: { "cache-control": "public, max-age=300" } })
    })),
  Route.handle(Routes.setPlatformStatus, ({ body, caller }) =>
    Effect.gen(function*() {
      const status = yield* PlatformStatus
      return invalidates(Route.json(yield* status.set(caller, body)), { platformId: body.platformId })
    })),
  Route.handle(Routes.listAudit, ({ caller, query }) => readAudit(caller, query)),
  Route.handle(Routes.listAuditEvents, ({ caller, query }) => readAudit(caller, query)),
  Route.handle(Routes.listAuditLog, ({ caller, query }) => readAudit(caller, query))
]

/**
 * The authorization routes at their documented paths, failures in the kernel's error envelope.
 * Needs the `Callers` port (identity's `CallersLive`, provided by the accounts layer).
 */
export const AuthorizationRouter = Route.router(AuthorizationHandlers)

/**
 * Everything the authorization routes and the `Access` and `AuditLog` ports need, but the
 * database (`SqlClient`), `CoreConfig`, `Ids` and the `Callers` port.
 */
export const AuthorizationLive = Layer.mergeAll(
  RoleMappings.Default,
  Grants.Default,
  ApiKeys.Default,
  ServiceTokens.Default,
  PlatformStatus.Default
).pipe(
  Layer.provideMerge(Delegation.Default),
  Layer.provideMerge(AuditLogLive),
  Layer.provideMerge(Audit.Default),
  Layer.provideMerge(AccessLive)
)
