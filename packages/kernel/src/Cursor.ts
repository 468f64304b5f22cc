import { Effect } from "effect"
import { z } from "zod"
import { ValidationError } from "./Errors.js"
import { issuesOf, unstorableText } from "./Validation.js"

/** The longest cursor accepted; a sort key never needs more. */
export const MAX_CURSOR_LENGTH = 1024

/** A sort key: the values of the sort columns of the last item of a page. */
export type SortKey = Readonly<Record<string, string | number | boolean | null>>

/**
 * An instant in a cursor, as a valid `Date`: an ISO 8601 date-time (`Z` or an offset) or epoch
 * milliseconds, within the range a `Date` holds. Anything else (`"x"`, `1e20`, month 13) is refused,
 * so that no query ever sees an Invalid Date.
 */
export const Instant = z
  .union([z.iso.datetime({ offset: true }), z.number().int()])
  .transform((value) => new Date(value))
  .pipe(z.date({ error: "Expected a valid date" }))

/** A calendar day in a cursor (`YYYY-MM-DD`), one that exists (no `2026-02-30`). */
export const Day = z.iso.date().refine((day) => {
  const time = Date.parse(`${day}T00:00:00Z`)
  return !Number.isNaN(time) && new Date(time).toISOString().startsWith(day)
}, "Expected a valid date")

/** An id in a cursor: what the kernel's and the providers' ids look like (`plt_01J…`, `in_…`), at most 128 characters. */
export const Key = z.string().min(1).max(128).regex(/^[A-Za-z0-9_-]+$/, { error: "Expected an id" })

/** A position in a list kept in memory: a non-negative safe integer. */
export const Offset = z.number().int().min(0)

/**
 * The usual sort key: creation time, then id to break ties. Decodes to a valid `Date` whichever
 * form the cursor was made with (an ISO string, or epoch milliseconds where the column is a number).
 */
export const CreatedAtId = z.object({ createdAt: Instant, id: Key })
export type CreatedAtId = z.output<typeof CreatedAtId>

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
 * Decode a cursor from a request into its sort key, validated with `schema` (build it from
 * {@link Instant}, {@link Day}, {@link Key} and {@link Offset}, or use {@link CreatedAtId}); anything
 * else (garbage, another shape, wrong types, invalid dates, text PostgreSQL cannot store, over
 * {@link MAX_CURSOR_LENGTH}) fails with `ValidationError` (400) on the `cursor` query parameter.
 * Every paged route decodes its cursor here, so a crafted cursor is a 400, never a 500 (decision 0565).
 */
export const decode = <S extends z.ZodType>(schema: S, cursor: string): Effect.Effect<z.output<S>, ValidationError> =>
  Effect.suspend(() => {
    if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
      return Effect.fail(invalid("Invalid cursor"))
    }
    const value = parseJson(cursor)
    if (value === undefined || typeof value !== "object" || value === null || Array.isArray(value)) return Effect.fail(invalid("Invalid cursor"))
    // Text PostgreSQL cannot store (NUL, lone surrogates) never reaches a query, whatever the schema.
    const unstorable = unstorableText(value)
    if (unstorable !== undefined) return Effect.fail(invalid(`Invalid cursor (${unstorable})`))
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
