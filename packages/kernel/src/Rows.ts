/**
 * Row decoding shared by every repository: the same value read the same way on both drivers
 * (`pg` gives `int8`/`numeric` as strings and `jsonb` parsed; PGlite gives numbers, and dates as
 * `Date`s or strings depending on the column).
 */

/** Read a `jsonb` array of strings. */
export const stringArray = (value: unknown): Array<string> => {
  const parsed: unknown = typeof value === "string" ? JSON.parse(value) : value
  return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === "string") : []
}

/** Read a `jsonb` object (or `null`). */
export const jsonObject = (value: unknown): Record<string, unknown> | null => {
  const parsed: unknown = typeof value === "string" ? JSON.parse(value) : value
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed as Record<string, unknown> : null
}

/** Read an `int8` or `numeric` as a number, keeping `null`. */
export const int8 = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))

/** Read a `timestamptz` as ISO 8601 whichever way the driver gives it. */
export const iso = (value: unknown): string => toDate(value).toISOString()

/** Like `iso`, keeping `null`. */
export const isoOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : iso(value))

/** A timestamp column as a `Date` (a `Date`, an ISO string or epoch milliseconds). */
export const toDate = (value: unknown): Date =>
  value instanceof Date ? value : new Date(typeof value === "number" ? value : String(value))

/** A nullable timestamp column as a `Date` or `null`. */
export const toDateOrNull = (value: unknown): Date | null => (value === null || value === undefined ? null : toDate(value))

/** A nullable text column as a string or `null` (`undefined` when the column is absent counts as `null`). */
export const textOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : String(value))
