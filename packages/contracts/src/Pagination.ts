import { z } from "zod"

/** The page size when a list request names none. */
export const DEFAULT_LIMIT = 25
/** The page size of the invitation list when the request names none. */
export const INVITATIONS_DEFAULT_LIMIT = 50
/** The largest page size any list accepts. */
export const MAX_LIMIT = 100

/** `limit` in a query string: an integer from 1 to 100, coerced from its text. @default 25 */
export const limitParam = (defaultLimit: number = DEFAULT_LIMIT) =>
  z.coerce.number().int().min(1).max(MAX_LIMIT).default(defaultLimit).meta({
    description: `Page size, 1 to ${MAX_LIMIT}`
  })

/** `cursor` in a query string: the opaque cursor of the previous page; empty means the first page. */
export const cursorParam = z
  .string()
  .max(1024)
  .optional()
  .transform((value) => (value === "" ? undefined : value))
  .meta({ description: "Opaque cursor from the previous page; omit for the first page" })

/** The query of a cursor-paged list: `cursor`, `limit` (default 25, 1 to 100). */
export const cursorQuery = (defaultLimit: number = DEFAULT_LIMIT) =>
  z.object({ cursor: cursorParam, limit: limitParam(defaultLimit) })

/** The usual list query. */
export const CursorQuery = cursorQuery()
export type CursorQuery = z.output<typeof CursorQuery>

/** The invitation list query (`limit` default 50). */
export const InvitationsCursorQuery = cursorQuery(INVITATIONS_DEFAULT_LIMIT)

/** The `pagination` object of a registry page. `nextCursor` is `null` on the last page. */
export const PagePagination = z
  .object({
    hasMore: z.boolean(),
    nextCursor: z.string().nullable(),
    total: z.number().int().min(0)
  })
  .meta({ id: "PagePagination" })

/** A registry page: `{ data: [T], pagination: { hasMore, nextCursor, total } }`. */
export interface Page<T> {
  readonly data: ReadonlyArray<T>
  readonly pagination: z.output<typeof PagePagination>
}

/** The schema of a registry page of `item`. */
export const page = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), pagination: PagePagination })

/**
 * A cursor page for lists whose shape no seed fixes (audit, billing history, invoices):
 * `{ data, hasMore, nextCursor }`, `nextCursor` `null` on the last page.
 */
export interface CursorPage<T> {
  readonly data: ReadonlyArray<T>
  readonly hasMore: boolean
  readonly nextCursor: string | null
}

/** The schema of a cursor page of `item`. */
export const cursorPage = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), hasMore: z.boolean(), nextCursor: z.string().nullable() })

/** The invitation list: `{ data, cursor }`, `cursor` empty (`""`) on the last page. */
export interface CursorList<T> {
  readonly data: ReadonlyArray<T>
  readonly cursor: string
}

/** The schema of an invitation-style list of `item`. */
export const cursorList = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), cursor: z.string() })

/**
 * The `pagination` of the provisioning job list: the `limit` used, the `cursor` asked
 * for (`""` on the first page), the `nextCursor` (`""` on the last page) and the `count` returned.
 */
export const JobPagination = z
  .object({
    limit: z.number().int(),
    cursor: z.string(),
    nextCursor: z.string(),
    count: z.number().int().min(0)
  })
  .meta({ id: "JobPagination" })

/** The schema of the provisioning job list: `{ data, pagination: { limit, cursor, nextCursor, count } }`. */
export const jobPage = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), pagination: JobPagination })

/**
 * The `pagination` of the dead-letter list: the `limit` used and the `cursor` of the
 * next page (`""` on the last page).
 */
export const DeadLetterPagination = z
  .object({ limit: z.number().int(), cursor: z.string() })
  .meta({ id: "DeadLetterPagination" })

/** The schema of the dead-letter list: `{ data, pagination: { limit, cursor } }`. */
export const deadLetterPage = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), pagination: DeadLetterPagination })

/** The schema of a whole list with its size (stack templates and versions): `{ data, total }`. */
export const totalList = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), total: z.number().int().min(0) })

/** The schema of a whole, unpaged list (entity ancestors and descendants): `{ data }`. */
export const dataList = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) })
