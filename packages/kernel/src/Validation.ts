import type { ValidationIssue } from "@core/contracts"
import { Effect } from "effect"
import type { z } from "zod"
import { ValidationError } from "./Errors.js"

/** Flatten zod issues to `{ path, message }` with dotted paths. */
export const issuesOf = (error: z.ZodError): Array<ValidationIssue> =>
  error.issues.map((issue) => ({
    path: issue.path.map(String).join("."),
    message: issue.message
  }))

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const LONE_SURROGATE_ALL = new RegExp(LONE_SURROGATE.source, "g")

/** How deep decoded input may nest: no contract needs more, and deeper JSON is refused (decision 0185). */
export const MAX_DEPTH = 64

/** What a string holds that PostgreSQL cannot store, or `undefined` when it is storable text. */
const textProblem = (text: string): string | undefined => {
  if (text.includes("\u0000")) return "Must not contain NUL characters"
  // A lone UTF-16 surrogate ("\ud800" in JSON) is not Unicode: PostgreSQL refuses it in json and
  // the drivers turn it into U+FFFD in text (decision 0185).
  if (LONE_SURROGATE.test(text)) return "Must not contain lone surrogates (invalid Unicode)"
  return undefined
}

/**
 * The first string (or object key) holding text PostgreSQL cannot store (a NUL character, a lone
 * surrogate), or the first value nested deeper than {@link MAX_DEPTH}, and why: refused for every
 * service at once, as a 400 rather than a database error or a stack overflow further on.
 */
const badText = (
  value: unknown,
  path: ReadonlyArray<string>,
  depth = 0
): { readonly path: ReadonlyArray<string>; readonly message: string } | undefined => {
  if (typeof value === "string") {
    const message = textProblem(value)
    return message === undefined ? undefined : { path, message }
  }
  if (typeof value !== "object" || value === null) return undefined
  if (depth >= MAX_DEPTH) return { path, message: `Must not nest deeper than ${MAX_DEPTH} levels` }
  for (const [key, item] of Object.entries(value)) {
    const message = textProblem(key)
    if (message !== undefined) return { path: [...path, key.replace(LONE_SURROGATE_ALL, "\uFFFD")], message }
    const found = badText(item, [...path, key], depth + 1)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * Where a decoded value (a cursor's JSON, say) holds text PostgreSQL cannot store, or nests
 * deeper than {@link MAX_DEPTH}: `"<path>: <why>"`, or `undefined` when it is storable.
 */
export const unstorableText = (value: unknown): string | undefined => {
  const bad = badText(value, [])
  if (bad === undefined) return undefined
  return bad.path.length === 0 ? bad.message : `${bad.path.join(".")}: ${bad.message}`
}

/**
 * Parse a value with a contract schema, failing with `ValidationError` (400) carrying the issues.
 * `where` names the part of the request (`body`, `query`, `params`) in the message.
 */
export const decode = <S extends z.ZodType>(
  schema: S,
  input: unknown,
  where: "body" | "query" | "params" = "body"
): Effect.Effect<z.output<S>, ValidationError> => {
  const bad = badText(input, [])
  if (bad !== undefined) {
    return Effect.fail(
      new ValidationError({
        message: `Invalid request ${where}`,
        issues: [{ path: bad.path.join("."), message: bad.message }]
      })
    )
  }
  const result = schema.safeParse(input)
  return result.success
    ? Effect.succeed(result.data)
    : Effect.fail(new ValidationError({ message: `Invalid request ${where}`, issues: issuesOf(result.error) }))
}
