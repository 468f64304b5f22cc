import { types } from "@electric-sql/pglite"

/** @internal */
export type Parser = (value: string) => unknown

const identity: Parser = (value) => value

const parseInt8: Parser = (value) => {
  const big = BigInt(value)
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big
}

const TIMESTAMP =
  /^(\d{4,})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?|Z)?( BC)?$/

const parseTimestamp: Parser = (value) => {
  if (value === "infinity") return Infinity
  if (value === "-infinity") return -Infinity
  const match = TIMESTAMP.exec(value)
  if (match === null) return new Date(value)
  const [, year, month, day, hour, minute, second, fraction, sign, offsetHours, offsetMinutes, offsetSeconds, bc] =
    match
  const date = new Date(0)
  const fullYear = bc === undefined ? Number(year) : 1 - Number(year)
  date.setUTCFullYear(fullYear, Number(month) - 1, Number(day))
  date.setUTCHours(
    Number(hour),
    Number(minute),
    Number(second),
    fraction === undefined ? 0 : Number(fraction.padEnd(3, "0").slice(0, 3))
  )
  if (sign !== undefined) {
    const offset = Number(offsetHours) * 3600 + Number(offsetMinutes ?? 0) * 60 + Number(offsetSeconds ?? 0)
    date.setTime(date.getTime() - (sign === "-" ? -offset : offset) * 1000)
  }
  return date
}

/**
 * How both drivers read column values (decision 0010): the PGlite defaults for the common types,
 * with `int8` as a number (a `bigint` beyond ±2^53), `numeric` and `date` as exact strings, and
 * `timestamp`/`timestamptz` as `Date` (a zoneless `timestamp` read as UTC).
 *
 * @internal
 */
export const elementParsers: Record<number, Parser> = {
  ...(types.parsers as Record<number, Parser>),
  [types.INT8]: parseInt8,
  [types.NUMERIC]: identity,
  [types.DATE]: identity,
  [types.TIME]: identity,
  [types.TIMETZ]: identity,
  [types.INTERVAL]: identity,
  [types.TIMESTAMP]: parseTimestamp,
  [types.TIMESTAMPTZ]: parseTimestamp
}

const arrayElements: ReadonlyArray<readonly [array: number, element: number]> = [
  [1000, types.BOOL],
  [1001, types.BYTEA],
  [1005, types.INT2],
  [1007, types.INT4],
  [1016, types.INT8],
  [1009, types.TEXT],
  [1014, types.BPCHAR],
  [1015, types.VARCHAR],
  [1021, types.FLOAT4],
  [1022, types.FLOAT8],
  [1028, types.OID],
  [1231, types.NUMERIC],
  [199, types.JSON],
  [3807, types.JSONB],
  [2951, types.UUID],
  [1182, types.DATE],
  [1183, types.TIME],
  [1115, types.TIMESTAMP],
  [1185, types.TIMESTAMPTZ],
  [1187, types.INTERVAL]
]

const arrayParsers: Record<number, Parser> = Object.fromEntries(
  arrayElements.map(([array, element]) => [
    array,
    (value: string) => types.arrayParser(value, elementParsers[element] ?? identity, array)
  ])
)

/**
 * The `types` option of a `pg` pool that reads values as PGlite does with {@link elementParsers}
 * (PGlite derives its array parsers from the element parsers itself).
 *
 * @internal
 */
export const pgTypes = {
  getTypeParser: (oid: number, format?: "text" | "binary"): Parser =>
    format === "binary" ? identity : arrayParsers[oid] ?? elementParsers[oid] ?? identity
}

/**
 * Prepares a parameter for PGlite the way `pg` prepares it: plain objects become JSON text, so
 * that a parameter reads the same whatever type PostgreSQL infers for it.
 *
 * @internal
 */
export const prepareParam = (value: unknown): unknown =>
  value !== null &&
    typeof value === "object" &&
    !(value instanceof Date) &&
    !ArrayBuffer.isView(value) &&
    !Array.isArray(value)
    ? JSON.stringify(value)
    : value
