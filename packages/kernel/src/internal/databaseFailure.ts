import { Cause, Chunk } from "effect"

/** Words after which a quoted name is an identifier (a constraint, a column), kept in the message. */
const IDENTIFIER_BEFORE = /\b(?:constraint|relation|column|index|table|schema|function|type|database|role|sequence|trigger|view|extension|operator|key)\s*$/i

const QUOTED = /"(?:[^"]|"")*"/g

/** The longest database message a log line carries. */
const MAX_MESSAGE = 300

interface DatabaseErrorLike {
  readonly message: string
  readonly code?: unknown
}

const isSqlError = (u: unknown): u is { readonly _tag: "SqlError"; readonly cause: unknown } =>
  typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "SqlError"

const databaseErrorOf = (u: unknown): DatabaseErrorLike | undefined => {
  if (!isSqlError(u)) return undefined
  const cause = u.cause
  return typeof cause === "object" && cause !== null && typeof (cause as { message?: unknown }).message === "string"
    ? cause as DatabaseErrorLike
    : undefined
}

/**
 * A database message fit for a log: quoted values elided (`invalid input syntax for type uuid: "…"`),
 * quoted identifiers kept (`violates unique constraint "users_email_key"`), at most 300 characters.
 * The error's `detail`, `where`, query and parameters are never read: they may carry the values sent.
 */
export const safeMessage = (message: string): string => {
  const elided = message.replace(QUOTED, (quoted, offset: number) =>
    IDENTIFIER_BEFORE.test(message.slice(0, offset)) ? quoted : `"…"`)
  return elided.length > MAX_MESSAGE ? `${elided.slice(0, MAX_MESSAGE)}…` : elided
}

/**
 * The database's own account of the failed statements in `cause` (the driver's `SqlError` says
 * only "Failed to execute statement"): SQLSTATE and message, as `22P02 invalid input syntax for
 * type json`, on PostgreSQL and PGlite alike; `undefined` when no statement failed.
 */
export const failureOf = (cause: Cause.Cause<unknown>): string | undefined => {
  const errors = [...Chunk.toReadonlyArray(Cause.failures(cause)), ...Chunk.toReadonlyArray(Cause.defects(cause))]
  const messages = errors.flatMap((error) => {
    const database = databaseErrorOf(error)
    if (database === undefined) return []
    const code = typeof database.code === "string" ? `${database.code} ` : ""
    return [`${code}${safeMessage(database.message)}`]
  })
  return messages.length === 0 ? undefined : messages.join("; ")
}

/** SQLSTATEs of a database that is down or refusing connections, not of a statement that failed. */
const UNREACHABLE_STATES = /^(?:08\w{3}|57P0[1-3]|53300)$/

/** Socket errors of a connection that could not be made or was cut. */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "EPIPE"])

/** The driver's words for a connection it lost or never got (`pg` gives these without a code). */
const UNREACHABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|not queryable|Failed to acquire connection|Connection error/i

/** The reason a `SqlError` says the database cannot be reached (`ECONNREFUSED`, `57P01`), if it does. */
const unreachableReason = (u: unknown): string | undefined => {
  if (!isSqlError(u)) return undefined
  const cause = u.cause as { readonly code?: unknown; readonly message?: unknown } | undefined
  const code = typeof cause?.code === "string" ? cause.code : undefined
  if (code !== undefined && (UNREACHABLE_CODES.has(code) || UNREACHABLE_STATES.test(code))) return code
  const own = (u as { readonly message?: unknown }).message
  const words = [own, cause?.message].find((text): text is string => typeof text === "string" && UNREACHABLE_MESSAGES.test(text))
  return words === undefined ? undefined : "connection lost"
}

/**
 * Whether `cause` failed because the database could not be reached (refused, cut, shutting down,
 * out of connections) rather than because a statement failed: its reason (`ECONNREFUSED`,
 * `57P01`, `connection lost`) for the log — never an address — or `undefined`.
 */
export const unreachableOf = (cause: Cause.Cause<unknown>): string | undefined => {
  const errors = [...Chunk.toReadonlyArray(Cause.failures(cause)), ...Chunk.toReadonlyArray(Cause.defects(cause))]
  for (const error of errors) {
    const reason = unreachableReason(error)
    if (reason !== undefined) return reason
  }
  return undefined
}
