import { Rows } from "@core/kernel"
import type { Iam } from "@core/contracts"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** What is stored for a new key: its hash, never the key. */
export interface NewApiKey {
  readonly id: string
  readonly keyHash: string
  readonly start: string
  readonly name: string | null
  readonly organizationId: string
  readonly platformId: string
  readonly permissions: ReadonlyArray<string>
  /** A user id, `service` (the static key), or the id of the key that created it (`parentKeyId`). */
  readonly createdBy: string
  /** The key that created it, when a key did: revoking that key revokes this one. */
  readonly parentKeyId: string | null
  readonly expiresAt: string | null
  readonly createdAt: string
}

interface Row {
  readonly id: string
  readonly name: string | null
  readonly start: string
  readonly organizationId: string
  readonly platformId: string
  readonly permissions: unknown
  readonly createdBy: string
  readonly expiresAt: unknown
  readonly lastUsedAt: unknown
  readonly revokedAt: unknown
  readonly createdAt: unknown
}

const toApiKey = (row: Row): Iam.ApiKey => ({
  ...row,
  permissions: Rows.stringArray(row.permissions),
  expiresAt: Rows.isoOrNull(row.expiresAt),
  lastUsedAt: Rows.isoOrNull(row.lastUsedAt),
  revokedAt: Rows.isoOrNull(row.revokedAt),
  createdAt: Rows.iso(row.createdAt)
})

/** The SQL of `iam.api_keys`; keys are found by the SHA-256 hash of the key only. */
export class ApiKeysRepo extends Effect.Service<ApiKeysRepo>()("@core/auth/ApiKeysRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(
      `k.id AS "id", k.name AS "name", k.start AS "start", k.organization_id AS "organizationId",
       k.platform_id AS "platformId", k.permissions AS "permissions", k.created_by AS "createdBy",
       k.expires_at AS "expiresAt", k.last_used_at AS "lastUsedAt", k.revoked_at AS "revokedAt",
       k.created_at AS "createdAt"`
    )

    const insert = (key: NewApiKey) =>
      sql<Row>`INSERT INTO iam.api_keys AS k (id, key_hash, start, name, organization_id, platform_id, permissions,
          created_by, parent_key_id, expires_at, created_at)
        VALUES (${key.id}, ${key.keyHash}, ${key.start}, ${key.name}, ${key.organizationId}, ${key.platformId},
          ${JSON.stringify(key.permissions)}::jsonb, ${key.createdBy}, ${key.parentKeyId}, ${key.expiresAt}::timestamptz,
          ${key.createdAt}::timestamptz)
        RETURNING ${columns}`.pipe(
        Effect.map((rows) => toApiKey(rows[0])),
        Effect.orDie,
        Effect.withSpan("ApiKeysRepo.insert")
      )

    const list = (organizationId: string) =>
      sql<Row>`SELECT ${columns} FROM iam.api_keys k WHERE k.organization_id = ${organizationId}
        ORDER BY k.created_at DESC, k.id DESC`.pipe(
        Effect.map((rows) => rows.map(toApiKey)),
        Effect.orDie,
        Effect.withSpan("ApiKeysRepo.list")
      )

    const find = (id: string) =>
      sql<Row>`SELECT ${columns} FROM iam.api_keys k WHERE k.id = ${id}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? null : toApiKey(rows[0]))),
        Effect.orDie,
        Effect.withSpan("ApiKeysRepo.find")
      )

    /**
     * The key, its row locked until the transaction ends (`null` when there is none): a key that
     * creates a key holds it, so that its revocation waits for the creation and then sees the new key.
     */
    const findForUpdate = (id: string) =>
      sql<Row>`SELECT ${columns} FROM iam.api_keys k WHERE k.id = ${id} FOR UPDATE`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? null : toApiKey(rows[0]))),
        Effect.orDie,
        Effect.withSpan("ApiKeysRepo.findForUpdate")
      )

    /** One indexed lookup by hash, with the platform's status (absent row = `active`). */
    const findByHash = (keyHash: string) =>
      sql<Row & { platformStatus: "active" | "suspended" | null }>`
        SELECT ${columns}, ps.status AS "platformStatus"
        FROM iam.api_keys k LEFT JOIN iam.platform_status ps ON ps.platform_id = k.platform_id
        WHERE k.key_hash = ${keyHash}`.pipe(
        Effect.map((rows) =>
          rows[0] === undefined
            ? null
            : { key: toApiKey(rows[0]), platformStatus: rows[0].platformStatus ?? ("active" as const) }
        ),
        Effect.orDie,
        Effect.withSpan("ApiKeysRepo.findByHash")
      )

    /** Mark revoked; `false` when it already was. */
    const revoke = (id: string, at: string) =>
      sql<{ id: string }>`UPDATE iam.api_keys SET revoked_at = ${at}::timestamptz
        WHERE id = ${id} AND revoked_at IS NULL RETURNING id AS "id"`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie,
        Effect.withSpan("ApiKeysRepo.revoke")
      )

    /**
     * Revoke every live key a key created, and what those created, at any depth (the tree is walked
     * through revoked keys too); the keys revoked now.
     */
    const revokeDescendants = (id: string, at: string) =>
      sql<Row>`WITH RECURSIVE tree (id) AS (
          SELECT c.id FROM iam.api_keys c WHERE c.parent_key_id = ${id}
          UNION
          SELECT c.id FROM iam.api_keys c JOIN tree t ON c.parent_key_id = t.id
        )
        UPDATE iam.api_keys AS k SET revoked_at = ${at}::timestamptz FROM tree
        WHERE k.id = tree.id AND k.revoked_at IS NULL
        RETURNING ${columns}`.pipe(
        Effect.map((rows) => rows.map(toApiKey)),
        Effect.orDie,
        Effect.withSpan("ApiKeysRepo.revokeDescendants")
      )

    /** Record use, at most once a minute per key, so validation stays a read in the common case. */
    const touch = (id: string, at: string) =>
      sql`UPDATE iam.api_keys SET last_used_at = ${at}::timestamptz
        WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at < ${at}::timestamptz - interval '1 minute')`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    /** The organization's platform (`null` when it has none) — `undefined` when there is no such organization. */
    const platformOf = (organizationId: string) =>
      sql<{ platformId: string | null }>`SELECT platform_id AS "platformId" FROM iam.organizations
        WHERE id = ${organizationId}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? undefined : rows[0].platformId)),
        Effect.orDie
      )

    return { insert, list, find, findForUpdate, findByHash, revoke, revokeDescendants, touch, platformOf } as const
  })
}) {}
