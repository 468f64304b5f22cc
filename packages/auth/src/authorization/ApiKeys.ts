import { Iam } from "@core/contracts"
import { Conflict, CoreConfig, Crypto, type Forbidden, Ids, NotFound, Unauthorized, ValidationError } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { actorOf } from "../audit/Audit.js"
import { AuditLog } from "../audit/AuditLog.js"
import type { Caller } from "@core/kernel"
import { Access } from "./Access.js"
import { Delegation } from "./Delegation.js"
import { ApiKeysRepo } from "./ApiKeysRepo.js"

/** Every API key starts with this. */
export const API_KEY_PREFIX = "core_"
/** How many characters of a key are kept in clear (`start`) to tell keys apart in lists. */
const START_LENGTH = API_KEY_PREFIX.length + 6

const invalidKey = new Unauthorized({ message: "Invalid API key" })
const keyNotFound = new NotFound({ message: "API key not found" })

const invalidBody = (path: string, message: string) =>
  new ValidationError({ message: "Invalid request body", issues: [{ path, message }] })

/**
 * API keys (`core_` + 32 random bytes, base64url), bound to an organization and its platform,
 * stored as SHA-256 hashes: created (shown once), listed, revoked and validated.
 */
export class ApiKeys extends Effect.Service<ApiKeys>()("@core/auth/ApiKeys", {
  effect: Effect.gen(function*() {
    const repo = yield* ApiKeysRepo
    const delegation = yield* Delegation
    const access = yield* Access
    const audit = yield* AuditLog
    const ids = yield* Ids.Ids
    const config = yield* CoreConfig
    const sql = yield* SqlClient.SqlClient

    /** Create a key for the organization's platform; the caller must hold the key's permissions. */
    const create: (
      caller: Caller,
      input: Iam.CreateApiKeyRequest
    ) => Effect.Effect<Iam.CreatedApiKey, Forbidden | NotFound | Conflict | ValidationError> = Effect.fn("ApiKeys.create")(
      function*(caller: Caller, input: Iam.CreateApiKeyRequest) {
        yield* delegation.requireInOrganization(caller, input.organizationId, "apikeys:manage")
        const platformId = yield* repo.platformOf(input.organizationId)
        if (platformId === undefined) return yield* new NotFound({ message: "Organization not found" })
        if (platformId === null) {
          return yield* new Conflict({ message: "The organization has no platform; API keys are bound to a platform" })
        }
        if (input.platformId !== undefined && input.platformId !== platformId) {
          return yield* invalidBody("platformId", "Must be the platform of the organization")
        }
        const now = yield* Clock.currentTimeMillis
        if (input.expiresAt !== undefined && Date.parse(input.expiresAt) <= now) {
          return yield* invalidBody("expiresAt", "Must lie in the future")
        }
        const permissions = [...new Set(input.permissions ?? [])].sort()
        yield* delegation.requireHolds(caller, input.organizationId, permissions)
        const key = `${API_KEY_PREFIX}${Crypto.randomToken(32)}`
        const id = yield* ids.make("key")
        const created = yield* sql.withTransaction(Effect.zipLeft(
          repo.insert({
            id,
            keyHash: Crypto.sha256Hex(key),
            start: key.slice(0, START_LENGTH),
            name: input.name ?? null,
            organizationId: input.organizationId,
            platformId,
            permissions,
            createdBy: caller.kind === "user" ? caller.userId : "service",
            expiresAt: input.expiresAt === undefined ? null : new Date(input.expiresAt).toISOString(),
            createdAt: new Date(now).toISOString()
          }),
          audit.record({
            action: "apikey.create",
            ...actorOf(caller),
            organizationId: input.organizationId,
            targetType: "apikey",
            targetId: id,
            metadata: { name: input.name ?? null, platformId, permissions, expiresAt: input.expiresAt ?? null }
          })
        )).pipe(Effect.orDie)
        return { ...created, key }
      }
    )

    /** The organization's keys, revoked ones included — never a key or its hash. */
    const list = (caller: Caller, organizationId: string): Effect.Effect<ReadonlyArray<Iam.ApiKey>, Forbidden | NotFound> =>
      Effect.zipRight(delegation.requireInOrganization(caller, organizationId, "apikeys:read"), repo.list(organizationId))

    /** Revoke a key; revoking a revoked key succeeds without a second audit entry. */
    const revoke: (caller: Caller, id: string) => Effect.Effect<void, Forbidden | NotFound> = Effect.fn("ApiKeys.revoke")(
      function*(caller: Caller, id: string) {
        const key = yield* repo.find(id)
        if (key === null) return yield* keyNotFound
        yield* delegation.requireInOrganization(caller, key.organizationId, "apikeys:manage").pipe(
          Effect.catchTag("NotFound", () => keyNotFound)
        )
        const now = yield* Clock.currentTimeMillis
        yield* sql.withTransaction(Effect.gen(function*() {
          if (!(yield* repo.revoke(id, new Date(now).toISOString()))) return
          yield* audit.record({
            action: "apikey.revoke",
            ...actorOf(caller),
            organizationId: key.organizationId,
            targetType: "apikey",
            targetId: id,
            metadata: { name: key.name, start: key.start }
          })
        })).pipe(Effect.orDie)
      }
    )

    /**
     * Who may validate keys: the static service key or an operator — and anyone while no static key
     * is configured (the development bypass, where the gateway calls without credentials). Bad
     * credentials count as none.
     */
    const requireValidator = (caller: Caller | undefined): Effect.Effect<void, Unauthorized | Forbidden> => {
      if (config.staticApiKey === undefined) return Effect.void
      if (caller === undefined) return Effect.fail(new Unauthorized({ message: "Authentication required" }))
      return access.requireOperatorOrService(caller)
    }

    /**
     * Validate a presented key: unknown, malformed, revoked and expired keys all fail alike with
     * `Unauthorized` (nothing is learnt from the difference). One indexed lookup by hash.
     */
    const validate: (key: string) => Effect.Effect<Iam.ApiKeyValidation, Unauthorized> = Effect.fn("ApiKeys.validate")(
      function*(key: string) {
        if (!Iam.API_KEY_PATTERN.test(key)) return yield* invalidKey
        const found = yield* repo.findByHash(Crypto.sha256Hex(key))
        if (found === null) return yield* invalidKey
        const now = yield* Clock.currentTimeMillis
        const { key: record, platformStatus } = found
        if (record.revokedAt !== null) return yield* invalidKey
        if (record.expiresAt !== null && Date.parse(record.expiresAt) <= now) return yield* invalidKey
        yield* repo.touch(record.id, new Date(now).toISOString())
        return {
          valid: true as const,
          keyId: record.id,
          organizationId: record.organizationId,
          platformId: record.platformId,
          permissions: record.permissions,
          platformStatus
        }
      }
    )

    return { create, list, revoke, requireValidator, validate } as const
  }),
  dependencies: [ApiKeysRepo.Default]
}) {}
