import { CoreResponseValidationError } from "./errors.js"

/** One problem a schema found, as Standard Schema reports it. */
export interface SchemaIssue {
  readonly message: string
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined
}

type SchemaResult<T> =
  | { readonly value: T; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<SchemaIssue> }

/**
 * A response schema: any Standard Schema v1 (https://standardschema.dev), which zod 4 schemas are,
 * so the SDK checks responses without bundling a validator of its own.
 *
 * @example
 * const health = await client.request("GET", "/ready", { schema: z.object({ status: z.string() }) })
 */
export interface ResponseSchema<T> {
  readonly "~standard": {
    readonly version: 1
    readonly vendor: string
    readonly validate: (value: unknown) => SchemaResult<T> | Promise<SchemaResult<T>>
  }
}

/** Validates `body` with `schema`, failing with {@link CoreResponseValidationError}. */
export const validateResponse = async <T>(schema: ResponseSchema<T>, body: unknown): Promise<T> => {
  const result = await schema["~standard"].validate(body)
  if (result.issues !== undefined) throw new CoreResponseValidationError(result.issues, body)
  return result.value
}
