import { z } from "zod"

/** The longest plant name and tag the store keeps (the seed leaves them unbounded; decision 0550). */
export const NAME_MAX = 200
export const TAG_MAX = 100

/** The seed's `Plant`: `name` required, `tag` optional. */
export const Plant = z.object({
  name: z.string().min(1).max(NAME_MAX),
  tag: z.string().min(1).max(TAG_MAX).optional()
})
export type Plant = z.infer<typeof Plant>

/**
 * The seed's `NewPlant`: the Plant's fields plus `id` (int64). JSON numbers are exact up to
 * 2^53 − 1, so the store takes the non-negative safe integers (decision 0550).
 */
export const NewPlant = Plant.extend({
  id: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)
})
export type NewPlant = z.infer<typeof NewPlant>

/** The seed's `Error`: `error` (int32, the HTTP status) and `message`. */
export interface ErrorBody {
  readonly error: number
  readonly message: string
}

/** Query of `GET /plants`: at most `limit` plants (default and maximum 100) with an id above `after`. */
export const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(100),
  after: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional()
})
export type ListQuery = z.infer<typeof ListQuery>

/** The first issue of a failed parse as one sentence: `id: Invalid input: expected number, received string`. */
export const describeIssue = (error: z.ZodError): string => {
  const issue = error.issues[0]
  if (issue === undefined) return "Invalid request"
  const path = issue.path.map(String).join(".")
  return path === "" ? issue.message : `${path}: ${issue.message}`
}
