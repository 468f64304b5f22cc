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

/**
 * The path of the first string (or object key) holding a NUL character, which PostgreSQL cannot
 * store in text: refused for every service at once, as a 400 rather than a database error.
 */
const nulPath = (value: unknown, path: ReadonlyArray<string>, depth = 0): ReadonlyArray<string> | undefined => {
  if (typeof value === "string") return value.includes("\u0000") ? path : undefined
  if (typeof value !== "object" || value === null || depth > 64) return undefined
  for (const [key, item] of Object.entries(value)) {
    if (key.includes("\u0000")) return [...path, key]
    const found = nulPath(item, [...path, key], depth + 1)
    if (found !== undefined) return found
  }
  return undefined
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
  const nul = nulPath(input, [])
  if (nul !== undefined) {
    return Effect.fail(
      new ValidationError({
        message: `Invalid request ${where}`,
        issues: [{ path: nul.join("."), message: "Must not contain NUL characters" }]
      })
    )
  }
  const result = schema.safeParse(input)
  return result.success
    ? Effect.succeed(result.data)
    : Effect.fail(new ValidationError({ message: `Invalid request ${where}`, issues: issuesOf(result.error) }))
}
