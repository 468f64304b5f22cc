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
 * Parse a value with a contract schema, failing with `ValidationError` (400) carrying the issues.
 * `where` names the part of the request (`body`, `query`, `params`) in the message.
 */
export const decode = <S extends z.ZodType>(
  schema: S,
  input: unknown,
  where: "body" | "query" | "params" = "body"
): Effect.Effect<z.output<S>, ValidationError> => {
  const result = schema.safeParse(input)
  return result.success
    ? Effect.succeed(result.data)
    : Effect.fail(new ValidationError({ message: `Invalid request ${where}`, issues: issuesOf(result.error) }))
}
