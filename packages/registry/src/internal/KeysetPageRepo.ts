import { Cursor, type ValidationError } from "@core/kernel"
import type { SqlClient, Statement } from "@effect/sql"
import { Effect } from "effect"
import type { RowPage } from "../Platforms.js"

/**
 * One `Page<T>` of a table's rows matching `clauses`, by keyset on `(created_at, id)` (oldest
 * first): `limit + 1` rows fetched to know `hasMore`, the total of the filter counted beside.
 * A malformed cursor fails with `ValidationError` (400). The repositories' shared paging SQL.
 */
export const keysetPage = <A extends { readonly createdAt: string; readonly id: string }>(
  sql: SqlClient.SqlClient,
  from: { readonly table: string; readonly columns: Statement.Fragment },
  clauses: ReadonlyArray<Statement.Fragment>,
  query: { readonly cursor?: string | undefined; readonly limit: number },
  decode: (raw: Record<string, unknown>) => A
): Effect.Effect<RowPage<A>, ValidationError> =>
  Effect.gen(function*() {
    const after = yield* Cursor.decodeOptional(Cursor.CreatedAtId, query.cursor)
    const table = sql.literal(from.table)
    const total = yield* sql<{ count: unknown }>`SELECT count(*) AS count FROM ${table} WHERE ${sql.and(clauses)}`.pipe(
      Effect.map((rows) => Number(rows[0]?.count ?? 0)),
      Effect.orDie
    )
    const paged = after === undefined ? clauses : [...clauses, sql`(created_at, id) > (${new Date(after.createdAt)}, ${after.id})`]
    const rows = yield* sql<Record<string, unknown>>`SELECT ${from.columns} FROM ${table} WHERE ${sql.and(paged)}
      ORDER BY created_at, id LIMIT ${query.limit + 1}`.pipe(Effect.orDie)
    const cut = Cursor.page(rows.map(decode), query.limit, (row) => ({ createdAt: row.createdAt, id: row.id }))
    return { data: cut.data, pagination: { hasMore: cut.hasMore, nextCursor: cut.nextCursor, total } }
  })
