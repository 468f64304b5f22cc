import { Iam } from "@core/contracts"
import { Body } from "@core/kernel"
import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"
import { AccessLive } from "./AccessLive.js"
import { ApiKeys } from "./ApiKeys.js"
import { Audit, AuditLogLive } from "../audit/Audit.js"
import { Authentication } from "../accounts/Authentication.js"
import { Delegation } from "./Delegation.js"
import { Grants } from "./Grants.js"
import { PlatformStatus } from "./PlatformStatus.js"
import { RoleMappings } from "./RoleMappings.js"
import { ServiceTokens } from "./ServiceTokens.js"
import { invalidates } from "../internal/Invalidate.js"

const json = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status })
const noContent = HttpServerResponse.empty({ status: 204 })
const noStore = { headers: { "cache-control": "no-store" } }

const caller = Effect.flatMap(Authentication, (auth) => auth.caller)

const roles = HttpRouter.empty.pipe(
  HttpRouter.get("/api/core/roles", Effect.gen(function*() {
    const who = yield* caller
    const query = yield* Body.query(Iam.ListRoleMappingsQuery)
    return json({ data: yield* Effect.flatMap(RoleMappings, (s) => s.list(who, query.orgId)) })
  })),
  HttpRouter.post("/api/core/roles", Effect.gen(function*() {
    const who = yield* caller
    const input = yield* Body.json(Iam.UpsertRoleMappingRequest)
    return json(yield* Effect.flatMap(RoleMappings, (s) => s.upsert(who, input)))
  })),
  HttpRouter.del("/api/core/roles/:orgId/:role", Effect.gen(function*() {
    const who = yield* caller
    const params = yield* Body.params(Iam.RoleMappingParams)
    yield* Effect.flatMap(RoleMappings, (s) => s.remove(who, params.orgId, params.role))
    return noContent
  }))
)

const grants = HttpRouter.empty.pipe(
  HttpRouter.get("/api/core/grants", Effect.gen(function*() {
    const who = yield* caller
    const query = yield* Body.query(Iam.ListGrantsQuery)
    return json({ data: yield* Effect.flatMap(Grants, (s) => s.list(who, query)) })
  })),
  HttpRouter.post("/api/core/grants", Effect.gen(function*() {
    const who = yield* caller
    const input = yield* Body.json(Iam.CreateGrantRequest)
    return json(yield* Effect.flatMap(Grants, (s) => s.create(who, input)), 201)
  })),
  HttpRouter.del("/api/core/grants/:id", Effect.gen(function*() {
    const who = yield* caller
    const { id } = yield* Body.params(Iam.IdParams)
    yield* Effect.flatMap(Grants, (s) => s.remove(who, id))
    return noContent
  }))
)

const apiKeys = HttpRouter.empty.pipe(
  HttpRouter.post("/api/core/apikeys", Effect.gen(function*() {
    const who = yield* caller
    const input = yield* Body.json(Iam.CreateApiKeyRequest)
    const created = yield* Effect.flatMap(ApiKeys, (s) => s.create(who, input))
    return HttpServerResponse.unsafeJson(created, { status: 201, ...noStore })
  })),
  HttpRouter.get("/api/core/apikeys", Effect.gen(function*() {
    const who = yield* caller
    const query = yield* Body.query(Iam.ListApiKeysQuery)
    return json({ data: yield* Effect.flatMap(ApiKeys, (s) => s.list(who, query.organizationId)) })
  })),
  HttpRouter.del("/api/core/apikeys/:id", Effect.gen(function*() {
    const who = yield* caller
    const { id } = yield* Body.params(Iam.IdParams)
    yield* Effect.flatMap(ApiKeys, (s) => s.revoke(who, id))
    return invalidates(noContent, { keyId: id })
  })),
  HttpRouter.post("/api/core/apikey/validate", Effect.gen(function*() {
    const keys = yield* ApiKeys
    const who = yield* Effect.orElseSucceed(caller, () => null)
    yield* keys.requireValidator(who)
    const input = yield* Body.json(Iam.ValidateApiKeyRequest)
    return HttpServerResponse.unsafeJson(yield* keys.validate(input.key), noStore)
  }))
)

const tokens = HttpRouter.empty.pipe(
  HttpRouter.post("/api/core/service-token", Effect.gen(function*() {
    const who = yield* caller
    const input = yield* Body.json(Iam.ServiceTokenRequest)
    return HttpServerResponse.unsafeJson(yield* Effect.flatMap(ServiceTokens, (s) => s.issue(who, input)), noStore)
  })),
  HttpRouter.get("/.well-known/jwks.json", Effect.gen(function*() {
    const jwks = yield* Effect.flatMap(ServiceTokens, (s) => s.jwks)
    return HttpServerResponse.unsafeJson(jwks, { headers: { "cache-control": "public, max-age=300" } })
  }))
)

const platformStatus = HttpRouter.empty.pipe(
  HttpRouter.post("/internal/platform-status", Effect.gen(function*() {
    const who = yield* caller
    const input = yield* Body.json(Iam.SetPlatformStatusRequest)
    const record = yield* Effect.flatMap(PlatformStatus, (s) => s.set(who, input))
    return invalidates(json(record), { platformId: input.platformId })
  }))
)

const readAudit = Effect.gen(function*() {
  const who = yield* caller
  const query = yield* Body.query(Iam.ListAuditQuery)
  return json(yield* Effect.flatMap(Audit, (s) => s.list(who, query)))
})

const audit = HttpRouter.empty.pipe(
  HttpRouter.get("/api/audit", readAudit),
  HttpRouter.get("/api/audit/events", readAudit),
  HttpRouter.get("/api/audit/log", readAudit)
)

/**
 * The authorization routes of the identity service: role mappings, grants, API keys, service
 * tokens and JWKS, platform status, and the audit log — at their documented paths.
 */
export const AuthorizationRouter = HttpRouter.concatAll(roles, grants, apiKeys, tokens, platformStatus, audit)

/**
 * Everything the authorization routes and the `Access` and `AuditLog` ports need, but the
 * database (`SqlClient`), `CoreConfig`, `Ids` and `Authentication`.
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
