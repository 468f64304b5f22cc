import { z } from "zod"
import type { RouteSpec } from "./Routes.js"

/**
 * What a path parameter names: the message of the 404 its route answers when the record does not
 * exist. A value of any shape that names nothing is that same 404 (as Stripe and GitHub answer), so
 * the kernel answers a path parameter its schema refuses with this message (decision 0567); the
 * shape of an id is still checked where it travels in a body or a query.
 */
export const PathRecords = z.registry<{ readonly notFound: string } | { readonly input: true }>()

/**
 * A copy of `schema` (its OpenAPI metadata kept) that names a record in a path, answered
 * `404 { message: notFound }` when nothing matches.
 *
 * @example params: z.object({ id: naming(BoundedId, "Invoice not found") })
 */
export const naming = <S extends z.ZodType>(schema: S, notFound: string): S => {
  const copy = schema.clone() as S
  PathRecords.add(copy, { notFound })
  return copy
}

/**
 * A copy of `schema` for a path parameter that is a value the request writes (a secret's name in
 * `PUT …/secrets/{secretName}`) or a one-time token, not a record it finds: a value of the wrong
 * shape stays `400 VALIDATION_ERROR`.
 */
export const pathInput = <S extends z.ZodType>(schema: S): S => {
  const copy = schema.clone() as S
  PathRecords.add(copy, { input: true })
  return copy
}

/**
 * The message a route answers when the record its path parameter `param` names does not exist
 * (`"Not found"` when its contract says nothing), or `undefined` for a parameter marked with
 * {@link pathInput}, whose refused values are a 400.
 */
export const notFoundMessage = (route: RouteSpec, param: string): string | undefined => {
  const params = route.request?.params
  const schema = params instanceof z.ZodObject ? (params.shape as Record<string, z.ZodType>)[param] : undefined
  const meta = schema === undefined ? undefined : PathRecords.get(schema)
  if (meta !== undefined && "input" in meta) return undefined
  return meta?.notFound ?? "Not found"
}
