import { CONCRETE_PERMISSIONS, Iam } from "@core/contracts"
import { type Conflict, CoreConfig, Crypto, EventOutbox, type Forbidden, Ids, type NotFound, type Unauthorized, type ValidationError } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { actorOf } from "../audit/Audit.js"
import { AuditLog } from "../audit/AuditLog.js"
import type { Caller } from "@core/kernel"
import { Access } from "./Access.js"
import { Delegation } from "./Delegation.js"
import { allows } from "./Permissions.js"
import { ApiKeysRepo } from "./ApiKeysRepo.js"
import { apiKeyNotFound, authenticationRequired, invalidApiKey, invalidBody, organizationNotFound, organizationWithoutPlatform } from "../Errors.js"

/** Every API key starts with this. */
export const API_KEY_PREFIX = "core_"
/** How many characters of a key are kept in clear (`start`) to tell keys apart in lists. */
const START_LENGTH = API_KEY_PREFIX.length + 6



/**
 * What a key holds when created without `permissions`: every `:read` permission of the catalogue
 * (its platform, tenants, resources, features, … — what a member reads) that its creator holds in
 * the organization (docs/decisions/0595-api-key-default-permissions.md).
 */
export const API_KEY_DEFAULT_PERMISSIONS: ReadonlyArray<string> = CONCRETE_PERMISSIONS.filter((permission) => permission.endsWith(":read"))

/** The earlier of two optional ISO expiries (`null`: never). */
const earliest = (a: string | null, b: string | null): string | null =>
  a === null ? b : b === null ? a : new Date(Math.min(Date.parse(a), Date.parse(b))).toISOString()

/** What a revocation changed: the key's platform and the descendants it revoked with it. */
export interface Revoked {
  readonly platformId: string
  readonly descendants: ReadonlyArray<string>
}

/** The user who created a key, when a user did; `undefined` for the static key's and a key's keys. */
export const creatorUserOf = (key: Pick<Iam.ApiKey, "createdBy">): string | undefined =>
  key.createdBy === "service" || key.createdBy.startsWith("key_") ? undefined : key.createdBy

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

    /**
     * The creating key, locked for the transaction: it must still be live (else `Unauthorized`,
     * as the gateway would answer it a moment later), and a new key expires no later than it.
     */
    const parentOf = (caller: Caller, now: number) =>
      Effect.gen(function*() {
        if (caller.kind !== "apikey") return null
        const parent = yield* repo.findForUpdate(caller.keyId)
        if (parent === null || parent.revokedAt !== null) return yield* invalidApiKey
        if (parent.expiresAt !== null && Date.parse(parent.expiresAt) <= now) return yield* invalidApiKey
        return parent
      })

    /** The default read permissions the caller holds in the organization, sorted. */
    const defaultPermissions = (caller: Caller, organizationId: string) =>
      Effect.map(access.permissionsIn(caller, organizationId), (held) =>
        API_KEY_DEFAULT_PERMISSIONS.filter((permission) => allows(held ?? [], permission)).sort())

    /**
     * Create a key for the organization's platform (without `permissions`: the default reads); the caller must hold the key's permissions. A
     * key created by a key records it (`createdBy`, `parentKeyId`), is revoked with it, and expires
     * no later than it (docs/decisions/0560-api-keys-revoked-with-their-creator.md).
     */
    const create: (
      caller: Caller,
      input: Iam.CreateApiKeyRequest
    ) => Effect.Effect<Iam.CreatedApiKey, Forbidden | NotFound | Conflict | Unauthorized | ValidationError> = Effect.fn("ApiKeys.create")(
      function*(caller: Caller, input: Iam.CreateApiKeyRequest) {
        yield* delegation.requireInOrganization(caller, input.organizationId, "apikeys:manage")
        const platformId = yield* repo.platformOf(input.organizationId)
        if (platformId === undefined) return yield* organizationNotFound
        if (platformId === null) {
          return yield* organizationWithoutPlatform
        }
        if (input.platformId !== undefined && input.platformId !== platformId) {
          return yield* invalidBody("platformId", "Must be the platform of the organization")
        }
        const now = yield* Clock.currentTimeMillis
        if (input.expiresAt !== undefined && Date.parse(input.expiresAt) <= now) {
          return yield* invalidBody("expiresAt", "Must lie in the future")
        }
        const permissions = input.permissions === undefined
          ? yield* defaultPermissions(caller, input.organizationId)
          : [...new Set(input.permissions)].sort()
        yield* delegation.requireHolds(caller, input.organizationId, permissions)
        const key = `${API_KEY_PREFIX}${Crypto.randomToken(32)}`
        const id = yield* ids.make("key")
        const created = yield* sql.withTransaction(Effect.gen(function*() {
          const parent = yield* parentOf(caller, now)
          const expiresAt = earliest(input.expiresAt === undefined ? null : new Date(input.expiresAt).toISOString(), parent?.expiresAt ?? null)
          const inserted = yield* repo.insert({
            id,
            keyHash: Crypto.sha256Hex(key),
            start: key.slice(0, START_LENGTH),
            name: input.name ?? null,
            organizationId: input.organizationId,
            platformId,
            permissions,
            createdBy: caller.kind === "user" ? caller.userId : parent?.id ?? "service",
            parentKeyId: parent?.id ?? null,
            expiresAt,
            createdAt: new Date(now).toISOString()
          })
          yield* audit.record({
            action: "apikey.create",
            ...actorOf(caller),
            organizationId: input.organizationId,
            targetType: "apikey",
            targetId: id,
            metadata: { name: input.name ?? null, platformId, permissions, expiresAt, parentKeyId: parent?.id ?? null }
          })
          yield* EventOutbox.record({ type: "api_key.created", organizationId: input.organizationId, platformId, data: inserted })
          return inserted
        })).pipe(Effect.catchTag("SqlError", Effect.die))
        return { ...created, key }
      }
    )

    /** The organization's keys, revoked ones included — never a key or its hash. */
    const list = (caller: Caller, organizationId: string): Effect.Effect<ReadonlyArray<Iam.ApiKey>, Forbidden | NotFound> =>
      Effect.zipRight(delegation.requireInOrganization(caller, organizationId, "apikeys:read"), repo.list(organizationId))

    /**
     * Revoke a key and, in the same transaction, every key it created, at any depth; each key
     * revoked now is audited once (its descendants with `revokedWith`). Revoking a revoked key
     * succeeds without a second entry. Answers the platform and the descendants revoked now.
     */
    const revoke: (caller: Caller, id: string) => Effect.Effect<Revoked, Forbidden | NotFound> = Effect.fn("ApiKeys.revoke")(
      function*(caller: Caller, id: string) {
        const key = yield* repo.find(id)
        if (key === null) return yield* apiKeyNotFound
        yield* delegation.requireInOrganization(caller, key.organizationId, "apikeys:manage").pipe(
          Effect.catchTag("NotFound", () => apiKeyNotFound)
        )
        const at = new Date(yield* Clock.currentTimeMillis).toISOString()
        const entry = (revoked: Iam.ApiKey, revokedWith?: string) =>
          Effect.zipRight(
            audit.record({
              action: "apikey.revoke",
              ...actorOf(caller),
              organizationId: revoked.organizationId,
              targetType: "apikey",
              targetId: revoked.id,
              metadata: { name: revoked.name, start: revoked.start, ...(revokedWith === undefined ? {} : { revokedWith }) }
            }),
            EventOutbox.record({ type: "api_key.revoked", organizationId: revoked.organizationId, platformId: revoked.platformId, data: { ...revoked, revokedAt: revoked.revokedAt ?? at } })
          )
        const descendants = yield* sql.withTransaction(Effect.gen(function*() {
          if (yield* repo.revoke(id, at)) yield* entry(key)
          // The first statement waited for any creation holding this key; a key a descendant was
          // creating meanwhile is committed by the time a pass ends: walk again until none is left.
          const revoked: Array<Iam.ApiKey> = []
          for (;;) {
            const pass = yield* repo.revokeDescendants(id, at)
            if (pass.length === 0) break
            revoked.push(...pass)
          }
          yield* Effect.forEach(revoked, (descendant) => entry(descendant, id), { discard: true })
          return revoked.map((descendant) => descendant.id)
        })).pipe(Effect.orDie)
        return { platformId: key.platformId, descendants }
      }
    )

    /**
     * Who may validate keys: the static service key or an operator — and anyone while no static key
     * is configured (the development bypass, where the gateway calls without credentials). Bad
     * credentials count as none.
     */
    const requireValidator = (caller: Caller | undefined): Effect.Effect<void, Unauthorized | Forbidden> => {
      if (config.staticApiKey === undefined) return Effect.void
      if (caller === undefined) return Effect.fail(authenticationRequired)
      return access.requireOperatorOrService(caller)
    }

    /**
     * Validate a presented key: unknown, malformed, revoked and expired keys all fail alike with
     * `Unauthorized` (nothing is learnt from the difference). One indexed lookup by hash.
     */
    const validate: (key: string) => Effect.Effect<Iam.ApiKeyValidation, Unauthorized> = Effect.fn("ApiKeys.validate")(
      function*(key: string) {
        if (!Iam.API_KEY_PATTERN.test(key)) return yield* invalidApiKey
        const found = yield* repo.findByHash(Crypto.sha256Hex(key))
        if (found === null) return yield* invalidApiKey
        const now = yield* Clock.currentTimeMillis
        const { key: record, platformStatus } = found
        if (record.revokedAt !== null) return yield* invalidApiKey
        if (record.expiresAt !== null && Date.parse(record.expiresAt) <= now) return yield* invalidApiKey
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
