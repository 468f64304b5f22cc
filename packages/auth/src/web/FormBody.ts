import { HttpServerRequest } from "@effect/platform"
import { Body, type PayloadTooLarge, UnsupportedMediaType, ValidationError } from "@core/kernel"
import { Effect } from "effect"

/** The most bytes a page's form may send; the pages' forms are a few hundred. */
export const FORM_LIMIT = 16 * 1024

/** The fields of a posted form; a repeated name keeps its first value. */
export type FormFields = Readonly<Record<string, string>>

const isFormContentType = (header: string | undefined): boolean =>
  header?.split(";")[0]?.trim().toLowerCase() === "application/x-www-form-urlencoded"

const utf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * Read an `application/x-www-form-urlencoded` body (what an HTML form posts): 415 for another
 * content type, 413 over {@link FORM_LIMIT}, 400 when it is not UTF-8.
 */
export const read: Effect.Effect<
  FormFields,
  UnsupportedMediaType | PayloadTooLarge | ValidationError,
  HttpServerRequest.HttpServerRequest
> = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  if (!isFormContentType(request.headers["content-type"])) {
    return yield* new UnsupportedMediaType({ message: "Content-Type must be application/x-www-form-urlencoded" })
  }
  const bytes = yield* Body.bytes({ limit: FORM_LIMIT })
  const text = yield* Effect.try({
    try: () => utf8.decode(bytes),
    catch: () => new ValidationError({ message: "The form is not UTF-8", issues: [] })
  })
  const fields: Record<string, string> = Object.create(null)
  for (const [name, value] of new URLSearchParams(text)) if (!Object.hasOwn(fields, name)) fields[name] = value
  return fields
})

/** A field's value, or `undefined` when the form did not send it. */
export const text = (fields: FormFields, name: string): string | undefined =>
  Object.hasOwn(fields, name) ? fields[name] : undefined
