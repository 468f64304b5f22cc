import { describe, expect, it } from "vitest"
import { z } from "zod"
import { Iam, Registry, type RouteSpec } from "../src/index.js"

interface JsonSchema {
  readonly type?: string | ReadonlyArray<string>
  readonly maxLength?: number
  readonly maxItems?: number
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly additionalProperties?: JsonSchema | boolean
  readonly propertyNames?: JsonSchema
  readonly items?: JsonSchema
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly oneOf?: ReadonlyArray<JsonSchema>
  readonly allOf?: ReadonlyArray<JsonSchema>
  readonly enum?: ReadonlyArray<unknown>
  readonly const?: unknown
  readonly pattern?: string
}

/** A pattern that bounds the length itself: anchored, without `*`, `+` or an open `{n,}` (the typed ids). */
const boundsLength = (pattern: string | undefined): boolean =>
  pattern !== undefined && pattern.startsWith("^") && pattern.endsWith("$") && !/[*+]|\{\d+,\}/.test(pattern.replace(/\\./g, ""))

/** The places in a request schema where a string or an array has no maximum. */
const unbounded = (schema: JsonSchema, at: string): Array<string> => {
  const found: Array<string> = []
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]
  if (schema.enum === undefined && schema.const === undefined) {
    if (types.includes("string") && schema.maxLength === undefined && !boundsLength(schema.pattern)) found.push(`${at} (string)`)
    if (types.includes("array") && schema.maxItems === undefined) found.push(`${at} (array)`)
  }
  for (const [key, value] of Object.entries(schema.properties ?? {})) found.push(...unbounded(value, `${at}.${key}`))
  if (typeof schema.additionalProperties === "object") found.push(...unbounded(schema.additionalProperties, `${at}.*`))
  if (schema.propertyNames !== undefined) found.push(...unbounded(schema.propertyNames, `${at} (keys)`))
  if (schema.items !== undefined) found.push(...unbounded(schema.items, `${at}[]`))
  for (const variant of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) found.push(...unbounded(variant, at))
  return found
}

const catalogues: ReadonlyArray<readonly [string, Readonly<Record<string, RouteSpec>>]> = [
  ["identity", Iam.IdentityRoutes],
  ["registry", Registry.RegistryRoutes]
]

describe("Bounds: every string and array a request may carry has a maximum (decision 0186)", () => {
  for (const [catalogue, routes] of catalogues) {
    it(`holds for every ${catalogue} route's params, query and body`, () => {
      const found = Object.entries(routes).flatMap(([name, route]) =>
        (["params", "query", "body"] as const).flatMap((part) => {
          const schema = route.request?.[part]
          if (schema === undefined) return []
          const json = z.toJSONSchema(schema, { unrepresentable: "any", io: "input" }) as JsonSchema
          return unbounded(json, `${name}.${part}`)
        }))
      expect(found).toEqual([])
    })
  }
})
