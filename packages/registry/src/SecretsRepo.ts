import type { Registry } from "@core/contracts"
import type { ValidationError } from "@core/kernel"
import { Rows } from "@core/kernel"
import type { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { keysetPage } from "./internal/KeysetPageRepo.js"
import type { RowPage } from "./Platforms.js"

const toRecord = (raw: Record<string, unknown>): Registry.SecretRecord => ({
  id: raw.id as string,
  resourceId: raw.resourceId as string,
  secretName: raw.secretName as string,
  status: raw.status as Registry.SecretStatus,
  lastSetAt: Rows.isoOrNull(raw.lastSetAt),
  createdAt: Rows.iso(raw.createdAt),
  updatedAt: Rows.iso(raw.updatedAt)
})

/** A secret as stored: its record and, when it is set, its ciphertext. */
export interface NewSecretRow {
  readonly id: string
  readonly resourceId: string
  readonly secretName: string
  readonly ciphertext: string
  readonly at: Date
}

/** The SQL of `registry.secrets` (SqlClient only; a database failure is a defect). */
export const makeSecretsRepo = (sql: SqlClient.SqlClient) => {
  const columns = sql.literal(`id, resource_id AS "resourceId", secret_name AS "secretName", status,
    last_set_at AS "lastSetAt", created_at AS "createdAt", updated_at AS "updatedAt"`)
  return {
    /** A page of a resource's secrets of `status` (default `active`), oldest first. */
    list: (resourceId: string, query: Registry.ListSecretsQuery): Effect.Effect<RowPage<Registry.SecretRecord>, ValidationError> =>
      keysetPage(sql, { table: "registry.secrets", columns }, [sql`resource_id = ${resourceId}`, sql`status = ${query.status ?? "active"}`], query, toRecord),
    /** Insert or overwrite (and reactivate) a resource's secret of that name; its record. */
    upsert: (row: NewSecretRow) =>
      sql<Record<string, unknown>>`INSERT INTO registry.secrets
          (id, resource_id, secret_name, status, ciphertext, last_set_at, created_at, updated_at)
        VALUES (${row.id}, ${row.resourceId}, ${row.secretName}, 'active', ${row.ciphertext}, ${row.at}, ${row.at}, ${row.at})
        ON CONFLICT (resource_id, secret_name) DO UPDATE SET status = 'active', ciphertext = EXCLUDED.ciphertext,
          last_set_at = EXCLUDED.last_set_at, updated_at = EXCLUDED.updated_at
        RETURNING ${columns}`.pipe(Effect.map((rows) => toRecord(rows[0]!)), Effect.orDie, Effect.withSpan("SecretsRepo.upsert")),
    /** Mark an active secret deleted and erase its ciphertext; `false` when there was none. */
    remove: (resourceId: string, secretName: string, at: Date) =>
      sql`UPDATE registry.secrets SET status = 'deleted', ciphertext = NULL, updated_at = ${at}
        WHERE resource_id = ${resourceId} AND secret_name = ${secretName} AND status = 'active' RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie,
        Effect.withSpan("SecretsRepo.remove")
      ),
    /** The ciphertext of an active secret; `none` when there is none (or it holds no value). */
    ciphertext: (resourceId: string, secretName: string) =>
      sql<{ ciphertext: string | null }>`SELECT ciphertext FROM registry.secrets
        WHERE resource_id = ${resourceId} AND secret_name = ${secretName} AND status = 'active'`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.ciphertext)),
        Effect.orDie,
        Effect.withSpan("SecretsRepo.ciphertext")
      )
  } as const
}
