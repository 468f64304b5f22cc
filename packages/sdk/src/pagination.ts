import { CoreResponseValidationError } from "./errors.js"
import type { ResponseSchema } from "./schema.js"
import type { Query, RequestOptions, Transport } from "./transport.js"

/** Where a page says whether another follows: the page itself, or its `pagination` object. */
export interface CursorFields {
  readonly nextCursor?: string | null
  readonly hasMore?: boolean
  readonly cursor?: string | null
}

/**
 * One page of a cursor-paged list, in any form the services answer: `{ data, nextCursor, hasMore }`,
 * `{ data, cursor }`, or the registry's `{ data, pagination: { hasMore, nextCursor, total } }`
 * (decision 0234).
 */
export interface CursorPage<T> extends CursorFields {
  readonly data: ReadonlyArray<T>
  readonly pagination?: CursorFields | null
}

/** Options of {@link paginate}. */
export interface PaginateOptions<T> {
  /** Query parameters sent with every page (e.g. `limit`, filters). */
  readonly query?: Query
  /** The query parameter that carries the cursor. @default "cursor" */
  readonly cursorParam?: string
  /** Validates each page. */
  readonly schema?: ResponseSchema<CursorPage<T>>
  readonly headers?: RequestOptions["headers"]
  readonly signal?: AbortSignal
}

const hasCursorFields = (fields: CursorFields): boolean =>
  fields.nextCursor !== undefined || fields.cursor !== undefined || fields.hasMore !== undefined

/** The cursor of the next page: from the top level when it has one, else from `pagination`. */
const nextCursorOf = (page: CursorPage<unknown>): string | null => {
  const nested = typeof page.pagination === "object" && page.pagination !== null ? page.pagination : undefined
  const fields: CursorFields = hasCursorFields(page) || nested === undefined ? page : nested
  if (fields.hasMore === false) return null
  const cursor = fields.nextCursor !== undefined ? fields.nextCursor : fields.cursor
  return typeof cursor === "string" && cursor !== "" ? cursor : null
}

/**
 * Iterates over every item of a cursor-paged list, fetching pages as they are needed (GET).
 * Stops when a page has `hasMore: false`, no cursor, or repeats the cursor it was asked with.
 *
 * @example
 * for await (const platform of client.paginate<Platform>("/api/v1/platforms", { query: { limit: 100 } })) {
 *   console.log(platform.id)
 * }
 */
export async function* paginate<T>(
  transport: Transport,
  path: string,
  options: PaginateOptions<T> = {}
): AsyncGenerator<T, void, undefined> {
  const cursorParam = options.cursorParam ?? "cursor"
  let cursor: string | null = null
  do {
    const page: CursorPage<T> = await transport.request("GET", path, {
      query: cursor === null ? options.query : { ...options.query, [cursorParam]: cursor },
      ...(options.schema === undefined ? {} : { schema: options.schema }),
      ...(options.headers === undefined ? {} : { headers: options.headers }),
      ...(options.signal === undefined ? {} : { signal: options.signal })
    })
    if (typeof page !== "object" || page === null || !Array.isArray(page.data)) {
      throw new CoreResponseValidationError([{ message: "A paged response has no data array", path: ["data"] }], page)
    }
    yield* page.data
    const next = nextCursorOf(page)
    cursor = next === cursor ? null : next
  } while (cursor !== null)
}
