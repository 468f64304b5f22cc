import { Rows } from "@core/kernel"
import type { Iam } from "@core/contracts"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

interface Row {
  readonly platformId: string
  readonly status: "active" | "suspended"
  readonly updatedAt: unknown
}

const toRecord = (row: Row): Iam.PlatformStatusRecord => ({ ...row, updatedAt: Rows.iso(row.updatedAt) })

/** The SQL of `iam.platform_status`. A platform without a row is `active`. */
export class PlatformStatusRepo extends Effect.Service<PlatformStatusRepo>()("@core/auth/PlatformStatusRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(`platform_id AS "platformId", status AS "status", updated_at AS "updatedAt"`)

    const find = (platformId: string) =>
      sql<Row>`SELECT ${columns} FROM iam.platform_status WHERE platform_id = ${platformId}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? null : toRecord(rows[0]))),
        Effect.orDie,
        Effect.withSpan("PlatformStatusRepo.find")
      )

    const upsert = (platformId: string, status: "active" | "suspended", updatedBy: string | null, at: Date) =>
      sql<Row>`
        INSERT INTO iam.platform_status (platform_id, status, updated_by, updated_at)
        VALUES (${platformId}, ${status}, ${updatedBy}, ${at.toISOString()}::timestamptz)
        ON CONFLICT (platform_id)
        DO UPDATE SET status = EXCLUDED.status, updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at
        RETURNING ${columns}`.pipe(
        Effect.map((rows) => toRecord(rows[0])),
        Effect.orDie,
        Effect.withSpan("PlatformStatusRepo.upsert")
      )

    /** The organization whose platform this is, if identity knows it. */
    const organizationOf = (platformId: string) =>
      sql<{ id: string }>`SELECT id AS "id" FROM iam.organizations WHERE platform_id = ${platformId} LIMIT 1`.pipe(
        Effect.map((rows) => rows[0]?.id ?? null),
        Effect.orDie
      )

    return { find, upsert, organizationOf } as const
  })
}) {}
