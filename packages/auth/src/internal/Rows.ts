/** Read a `jsonb` array of strings the same way on both drivers. */
export const stringArray = (value: unknown): Array<string> => {
  const parsed: unknown = typeof value === "string" ? JSON.parse(value) : value
  return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === "string") : []
}

/** Read a `jsonb` object (or `null`) the same way on both drivers. */
export const jsonObject = (value: unknown): Record<string, unknown> | null => {
  const parsed: unknown = typeof value === "string" ? JSON.parse(value) : value
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed as Record<string, unknown> : null
}

/** Read an `int8` the same way on both drivers (`pg` gives strings, PGlite numbers). */
export const int8 = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))

/** Read a `timestamptz` as ISO 8601 whichever way the driver gives it. */
export const iso = (value: unknown): string => new Date(value as string | Date).toISOString()

/** Like `iso`, keeping `null`. */
export const isoOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : iso(value))

/** A timestamp column as a `Date`, whichever driver read it (a `Date`, an ISO string or epoch milliseconds). */
export const toDate = (value: unknown): Date =>
  value instanceof Date ? value : new Date(typeof value === "number" ? value : String(value))

/** A nullable timestamp column as a `Date` or `null`. */
export const toDateOrNull = (value: unknown): Date | null => (value === null || value === undefined ? null : toDate(value))
