import { Effect } from "effect"
import { z } from "zod"
import { ValidationError } from "./Errors.js"
import { issuesOf } from "./Validation.js"

/** The longest cursor accepted; a sort key never needs more. */
export const MAX_CURSOR_LENGTH = 1024

/** A sort key: the values of the sort columns of the last item of a page. */
export type SortKey = Readonly<Record<string, string | number | boolean | null>>

/** The usual sort key: creation time, then id to break ties. */
export const CreatedAtId = z.object({
  createdAt: z.union([z.string().min(1), z.number()]),
  id: z.string().min(1)
})
export type CreatedAtId = z.infer<typeof CreatedAtId>

/**
 * An opaque cursor for a sort key (base64url of its JSON).
 *
 * @example Cursor.encode({ createdAt: "2026-01-01T00:00:00.000Z", id: "plt_01J…" })
 */
export const encode = (key: SortKey): string => Buffer.from(JSON.stringify(key), "utf8").toString("base64url")

const invalid = (message: string) =>
  new ValidationError({ message: "Invalid request query", issues: [{ path: "cursor", message }] })

const parseJson = (cursor: string): unknown => {
  try {
    return JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
  } catch {
    return undefined
  }
}

/**
 * Decode a cursor from a request into its sort key, validated with `schema`; anything else
 * (garbage, another shape) fails with `ValidationError` (400) on the `cursor` query parameter.
 */
export const decode = <S extends z.ZodType>(schema: S, cursor: string): Effect.Effect<z.output<S>, ValidationError> =>
  Effect.suspend(() => {
    if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
      return Effect.fail(invalid("Invalid cursor"))
    }
    const value = parseJson(cursor)
    if (value === undefined || typeof value !== "object" || value === null) return Effect.fail(invalid("Invalid cursor"))
    const result = schema.safeParse(value)
    if (result.success) return Effect.succeed(result.data)
    const detail = issuesOf(result.error).map((issue) => (issue.path === "" ? issue.message : `${issue.path}: ${issue.message}`))
    return Effect.fail(invalid(`Invalid cursor (${detail.join("; ")})`))
  })

/** Decode an optional cursor: `undefined` (the first page) stays `undefined`. */
export const decodeOptional = <S extends z.ZodType>(
  schema: S,
  cursor: string | undefined
): Effect.Effect<z.output<S> | undefined, ValidationError> =>
  cursor === undefined ? Effect.succeed(undefined) : decode(schema, cursor)

/**
 * Cut a page from rows fetched with `LIMIT limit + 1`: the first `limit` rows, whether more exist,
 * and the cursor of the last row returned (`null` on the last page).
 *
 * @example
 * const rows = yield* repo.list({ after, limit: query.limit + 1 })
 * const { data, hasMore, nextCursor } = Cursor.page(rows, query.limit, (row) => ({ createdAt: row.createdAt, id: row.id }))
 */
export const page = <A>(
  rows: ReadonlyArray<A>,
  limit: number,
  keyOf: (row: A) => SortKey
): { readonly data: Array<A>; readonly hasMore: boolean; readonly nextCursor: string | null } => {
  const data = rows.slice(0, limit)
  const hasMore = rows.length > limit && data.length > 0
  return { data, hasMore, nextCursor: hasMore ? encode(keyOf(data[data.length - 1])) : null }
}
