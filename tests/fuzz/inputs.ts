import type { RouteSpec } from "@core/contracts"
import { OPEN_REDIRECTS } from "@core/kernel/testing"
import { z } from "zod"
import { CRAFTED_CURSORS } from "./cursors.js"

/**
 * Bad inputs for a catalogued route, derived from its declared schemas: each case breaks one thing
 * (a field, the body as a whole, its media type, a path parameter, the query) of a request that is
 * otherwise well formed, so that the whole route is reached and not only its first check.
 */

/** Who sends a case: the credentials the route's `auth` allows, or none. */
export type Sender = "owner" | "apikey" | "service" | "cookie" | "spare" | "anonymous"

/** One request of the fuzz. */
export interface FuzzCase {
  readonly route: string
  readonly label: string
  readonly method: string
  /** The path under the gateway prefix, parameters filled and encoded, with its query. */
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | Uint8Array<ArrayBuffer>
  readonly sender: Sender
}

/** The ids the fuzz signed in with, so that a well-formed rest reaches the handler. */
export interface Known {
  readonly orgId: string
  readonly platformId: string
  readonly userId: string
  /** Further ids by parameter or field name (`entityId`, `resourceId`, …), so that lookups succeed. */
  readonly ids?: Readonly<Record<string, string>>
}

/** A deterministic PRNG (mulberry32). */
export const random = (seed: number) => {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    pick: <A>(items: ReadonlyArray<A>): A => items[Math.floor(next() * items.length)],
    sample: <A>(items: ReadonlyArray<A>, count: number): Array<A> => {
      const pool = [...items]
      const out: Array<A> = []
      while (out.length < count && pool.length > 0) out.push(pool.splice(Math.floor(next() * pool.length), 1)[0])
      return out
    }
  }
}
type Random = ReturnType<typeof random>

interface JsonSchema {
  readonly type?: string | ReadonlyArray<string>
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly additionalProperties?: JsonSchema | boolean
  readonly required?: ReadonlyArray<string>
  readonly items?: JsonSchema
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly oneOf?: ReadonlyArray<JsonSchema>
  readonly allOf?: ReadonlyArray<JsonSchema>
  readonly enum?: ReadonlyArray<unknown>
  readonly const?: unknown
  readonly minLength?: number
  readonly maxLength?: number
  readonly maxItems?: number
  readonly minimum?: number
  readonly format?: string
}

const jsonSchemaOf = (schema: z.ZodType): JsonSchema =>
  z.toJSONSchema(schema, { unrepresentable: "any", io: "input" }) as JsonSchema

/** Values that name records the fuzz does not own: a well-formed request changes nothing of its callers. */
const MISSING = "fuzz_missing_0123456789"

const valueByName = (name: string, known: Known): unknown => {
  switch (name) {
    case "orgId":
    case "organizationId":
      return known.orgId
    case "platformId":
      return known.platformId
    case "userId":
    case "grantedBy":
      return known.userId
    case "permission":
      return "org:read"
    case "permissions":
      return ["org:read"]
    case "role":
      return "member"
    case "status":
      return "active"
    default:
      return known.ids?.[name]
  }
}

/** A well-formed value of a schema (the ids of `known` where a field names one). */
const sample = (schema: JsonSchema, name: string, known: Known): unknown => {
  const byName = valueByName(name, known)
  if (byName !== undefined && schema.enum === undefined) return byName
  if (schema.const !== undefined) return schema.const
  if (schema.enum !== undefined) return byName !== undefined && schema.enum.includes(byName) ? byName : schema.enum[0]
  const variant = schema.anyOf?.find((s) => s.type !== "null") ?? schema.oneOf?.[0]
  if (variant !== undefined) return sample(variant, name, known)
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  switch (type) {
    case "object":
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, value]) => [key, sample(value, key, known)]))
    case "array":
      return schema.items === undefined ? [] : [sample(schema.items, name, known)]
    case "integer":
    case "number":
      return schema.minimum ?? 1
    case "boolean":
      return true
    case "string":
      if (schema.format === "email") return "fuzz@example.com"
      if (schema.format === "uri") return "https://example.com/fuzz"
      if (schema.format === "date-time") return "2999-01-01T00:00:00Z"
      if (name === "slug" || name === "organizationSlug") return "fuzz-slug"
      if (/id$/i.test(name) || /token|code/i.test(name)) return MISSING
      return "fuzz".padEnd(Math.max(schema.minLength ?? 1, 4), "z")
    default:
      return "fuzz"
  }
}

const nested = (depth: number): unknown => {
  let value: unknown = "bottom"
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

/** Stands for a value nested 100,000 levels deep, spliced into the JSON text (`JSON.stringify` would overflow). */
const DEEP = "\u0001fuzz-deep\u0001"
const DEEP_JSON = `${"[".repeat(100_000)}${"]".repeat(100_000)}`

/** The bad values of one field, from its schema: over its bound, text PostgreSQL cannot store, wrong types. */
const badValues = (schema: JsonSchema): ReadonlyArray<readonly [string, unknown]> => {
  const max = schema.maxLength ?? schema.anyOf?.find((s) => s.maxLength !== undefined)?.maxLength
  return [
    ...(max === undefined ? [] : [[`${max + 1} characters`, "x".repeat(max + 1)] as const]),
    ...(schema.maxItems === undefined ? [] : [[`${schema.maxItems + 1} items`, Array(schema.maxItems + 1).fill("org:read")] as const]),
    ["4,000 characters", "r".repeat(4_000)],
    ["1,000,000 characters", "n".repeat(1_000_000)],
    ["a lone high surrogate", "a\ud800"],
    ["a lone low surrogate", "\udc00b"],
    ["a NUL character", "a\u0000b"],
    ["an empty string", ""],
    ["a number", 12345],
    ["a huge number", 1e308],
    ["a negative number", -1],
    ["an unsafe integer", 2 ** 64],
    ["a fraction", 1.5],
    ["a boolean", true],
    ["null", null],
    ["an array of strings", ["a", "b"]],
    ["an object", { a: 1 }],
    ["a deep object", nested(200)],
    ["nested 100,000 levels deep", DEEP],
    ["a lone surrogate key", { ["k\ud800"]: 1 }]
  ]
}

/** Any code unit (surrogates and controls included), mostly ASCII. */
const randomText = (rng: Random, length: number): string =>
  Array.from({ length }, () => String.fromCharCode(rng.next() < 0.7 ? 32 + Math.floor(rng.next() * 95) : Math.floor(rng.next() * 0x10000))).join("")

/** A random value of any JSON type: text of random code units, numbers of any magnitude, nested junk. */
const randomValue = (rng: Random, depth = 0): unknown => {
  const kind = Math.floor(rng.next() * (depth > 3 ? 4 : 6))
  switch (kind) {
    case 0:
      return randomText(rng, Math.floor(rng.next() ** 3 * 5_000))
    case 1:
      return (rng.next() - 0.5) * 10 ** Math.floor(rng.next() * 308)
    case 2:
      return rng.next() < 0.5
    case 3:
      return null
    case 4:
      return Array.from({ length: Math.floor(rng.next() * 4) }, () => randomValue(rng, depth + 1))
    default:
      return Object.fromEntries(Array.from({ length: Math.floor(rng.next() * 4) }, () => [randomText(rng, 8), randomValue(rng, depth + 1)]))
  }
}

/** A field or query parameter that names where a person is sent (`callbackURL`, `redirectTo`, `returnUrl`). */
const isRedirectField = (name: string): boolean => /callbackurl$|^redirect|returnurl$/i.test(name)

/** The open-redirect attacks (decision 0555), for a field that names where a person is sent. */
const redirectValues = (name: string): ReadonlyArray<readonly [string, string]> =>
  isRedirectField(name) ? OPEN_REDIRECTS.map(([what, target]) => [`an open redirect: ${what}`, target] as const) : []

/** Whole bodies that are not what the route reads. */
const BAD_BODIES: ReadonlyArray<readonly [string, string | Uint8Array<ArrayBuffer>]> = [
  ["truncated JSON", "{"],
  ["an empty body", ""],
  ["JSON null", "null"],
  ["a JSON array", "[]"],
  ["a JSON string", "\"s\""],
  ["a number out of range", "1e999"],
  ["invalid UTF-8", new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ["a byte order mark", "\ufeff{}"],
  ["a __proto__ key", "{\"__proto__\":{\"polluted\":true}}"],
  ["an escaped lone surrogate key", "{\"\\ud800\":1}"],
  ["deeply nested arrays", `${"[".repeat(20_000)}${"]".repeat(20_000)}`],
  ["deeply nested objects", `${"{\"a\":".repeat(5_000)}1${"}".repeat(5_000)}`],
  ["a long array", `[${"0,".repeat(100_000)}0]`]
]

const BAD_CONTENT_TYPES: ReadonlyArray<string | undefined> = [
  undefined,
  "text/plain",
  "application/json; charset=latin1",
  "multipart/form-data; boundary=x",
  "application/x-www-form-urlencoded",
  "application/xml",
  "application/json;;;"
]

/** Path parameter values, already percent-encoded as they go in the URL. */
const BAD_PARAMS: ReadonlyArray<readonly [string, string]> = [
  ["129 characters", "p".repeat(129)],
  ["4,000 characters", "p".repeat(4_000)],
  ["an encoded lone surrogate", "%ED%A0%80"],
  ["an encoded NUL", "a%00b"],
  ["broken percent-encoding", "%E0%A4%A"],
  ["a lone percent", "%"],
  ["an encoded slash", "..%2F..%2Fetc"],
  ["an emoji", "%F0%9F%98%80"],
  ["spaces", "a%20b"]
]

/** Query values, already encoded. */
const badQueryValues = (schema: JsonSchema): ReadonlyArray<readonly [string, string]> => {
  const max = schema.maxLength ?? 4096
  return [
    [`${max + 1} characters`, "q".repeat(max + 1)],
    ["an encoded lone surrogate", "%ED%A0%80"],
    ["an encoded NUL", "a%00b"],
    ["broken percent-encoding", "%E0%A4%A"],
    ["an empty value", ""],
    ["not a number", "abc"],
    ["a huge number", "1e309"],
    ["a long number", "9".repeat(400)]
  ]
}

const fill = (path: string, params: Readonly<Record<string, string>>): string =>
  path.replace(/:(\w+)|\{(\w+)\}/g, (_, a: string | undefined, b: string | undefined) => params[(a ?? b)!])

const paramNames = (path: string): Array<string> => [...path.matchAll(/:(\w+)|\{(\w+)\}/g)].map((m) => (m[1] ?? m[2])!)

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** `encodeURIComponent`, with a lone surrogate sent as the bytes it would have in CESU-8 (`%ED%A0%80`). */
const encode = (text: string): string => text.split(LONE_SURROGATE).map(encodeURIComponent).join("%ED%A0%80")

const encodeQuery = (values: Readonly<Record<string, unknown>>): string => {
  const parts: Array<string> = []
  for (const [key, value] of Object.entries(values)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined) parts.push(`${encode(key)}=${encode(String(item))}`)
    }
  }
  return parts.join("&")
}

const isForm = (route: RouteSpec) => route.request?.contentTypes?.[0] === "application/x-www-form-urlencoded"

const bodyText = (route: RouteSpec, value: unknown): string =>
  isForm(route) && typeof value === "object" && value !== null
    ? encodeQuery(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === "object" && v !== null && !Array.isArray(v) ? JSON.stringify(v) : v])))
    : JSON.stringify(value).replace(JSON.stringify(DEEP), DEEP_JSON)

/** Who sends the cases of a route: its kind of caller, rotating between the kinds a `caller` route takes. */
const sendersOf = (name: string, route: RouteSpec, disposable: ReadonlySet<string>): ReadonlyArray<Sender> => {
  if (disposable.has(name)) return ["spare"]
  switch (route.auth) {
    case "public":
      return route.path.startsWith("/api/") ? ["anonymous", "owner"] : ["anonymous"]
    case "session-cookie":
      return ["cookie"]
    case "operator":
    case "service":
      return ["service"]
    case "caller":
      return (route.callers ?? ["user", "apikey", "service"]).map((kind) => kind === "user" ? "owner" : kind)
  }
}

/** Well-formed path parameters of a route: `known`'s ids where it has them, else ids of the right shape. */
export const wellFormedParams = (route: RouteSpec, known: Known): Record<string, string> => {
  const schema = route.request?.params === undefined ? undefined : jsonSchemaOf(route.request.params)
  return Object.fromEntries(paramNames(route.path).map((param) => [param, String(sample(schema?.properties?.[param] ?? { type: "string" }, param, known))]))
}

/** A well-formed query of a route (the ids of `known` where a parameter names one), or `{}`. */
export const wellFormedQuery = (route: RouteSpec, known: Known): Record<string, unknown> =>
  route.request?.query === undefined ? {} : sample(jsonSchemaOf(route.request.query), "", known) as Record<string, unknown>

/** A well-formed body of a route (the ids of `known` where a field names one), or undefined when it takes none. */
export const wellFormedBody = (route: RouteSpec, known: Known): unknown =>
  route.request?.body === undefined ? undefined : sample(jsonSchemaOf(route.request.body), "", known)

/**
 * Every bad input of one route: per field of its body and query and per path parameter, each bad
 * value; then bad whole bodies and media types; then a stray query. The well-formed rest is built
 * from the schemas with `known`'s ids (records named by id are ones that do not exist).
 */
export const casesOf = (
  name: string,
  route: RouteSpec,
  known: Known,
  rng: Random,
  disposable: ReadonlySet<string>
): Array<FuzzCase> => {
  const senders = sendersOf(name, route, disposable)
  let turn = 0
  const sender = () => senders[turn++ % senders.length]
  const request = route.request
  const paramSchema = request?.params === undefined ? undefined : jsonSchemaOf(request.params)
  const goodParams: Record<string, string> = Object.fromEntries(paramNames(route.path).map((param) => {
    const value = sample(paramSchema?.properties?.[param] ?? { type: "string" }, param, known)
    return [param, encodeURIComponent(String(value))]
  }))
  const querySchema = request?.query === undefined ? undefined : jsonSchemaOf(request.query)
  const goodQuery = querySchema === undefined ? {} : sample(querySchema, "", known) as Record<string, unknown>
  const bodySchema = request?.body === undefined ? undefined : jsonSchemaOf(request.body)
  const goodBody = bodySchema === undefined ? undefined : sample(bodySchema, "", known)
  const hasBody = route.method !== "GET" && route.method !== "HEAD"
  const contentType = isForm(route) ? "application/x-www-form-urlencoded" : "application/json"
  const cases: Array<FuzzCase> = []

  const add = (label: string, parts: {
    readonly params?: Record<string, string>
    readonly query?: string
    readonly body?: string | Uint8Array<ArrayBuffer>
    readonly contentType?: string | null
  }, from: Sender = sender()) => {
    const query = parts.query ?? encodeQuery(goodQuery)
    const body = hasBody ? parts.body ?? (goodBody === undefined ? undefined : bodyText(route, goodBody)) : undefined
    const type = parts.contentType === null ? undefined : parts.contentType ?? (body === undefined ? undefined : contentType)
    cases.push({
      route: name,
      label: `${name} (${route.method} ${route.path}): ${label}`,
      method: route.method,
      path: `${fill(route.path, parts.params ?? goodParams)}${query === "" ? "" : `?${query}`}`,
      headers: type === undefined ? {} : { "content-type": type },
      ...(body === undefined ? {} : { body }),
      sender: from
    })
  }

  // One field at a time, in the body: the rest stays well formed.
  const fields = (schema: JsonSchema | undefined, at: ReadonlyArray<string>): void => {
    let good = goodBody
    for (const step of at) good = (good as Record<string, unknown>)[step]
    if (schema === undefined || typeof good !== "object" || good === null || Array.isArray(good)) return
    const properties = schema.properties ?? schema.oneOf?.[0]?.properties ?? {}
    for (const [key, property] of Object.entries(properties)) {
      const values = [...badValues(property), ...redirectValues(key), ...Array.from({ length: 3 }, (_, i) => [`random value ${i + 1}`, randomValue(rng)] as const)]
      for (const [what, value] of values) {
        const body = structuredClone(goodBody) as Record<string, unknown>
        let target = body
        for (const step of at) target = target[step] as Record<string, unknown>
        target[key] = value
        // Each field reaches the route as its first kind of caller (a member for most), which gets furthest.
        add(`body ${[...at, key].join(".")} is ${what}`, { body: bodyText(route, body) }, senders[0])
      }
      const inner = property.anyOf?.find((s) => s.type === "object") ?? (property.type === "object" ? property : undefined)
      if (inner?.properties !== undefined) fields(inner, [...at, key])
      // A record (metadata): each bad value under a key of its own, so that its own checks run.
      if (typeof inner?.additionalProperties === "object") {
        for (const [what, value] of badValues(inner.additionalProperties)) {
          const body = structuredClone(goodBody) as Record<string, unknown>
          let target = body
          for (const step of at) target = target[step] as Record<string, unknown>
          target[key] = { key: value }
          add(`body ${[...at, key, "key"].join(".")} is ${what}`, { body: bodyText(route, body) }, senders[0])
        }
      }
    }
  }
  if (hasBody && bodySchema !== undefined) fields(bodySchema, [])

  if (hasBody) {
    for (const [what, body] of BAD_BODIES) add(`the body is ${what}`, { body })
    for (const type of BAD_CONTENT_TYPES) add(`Content-Type ${type ?? "missing"}`, { contentType: type ?? null })
  }

  for (const param of paramNames(route.path)) {
    for (const [what, value] of BAD_PARAMS) add(`path parameter ${param} is ${what}`, { params: { ...goodParams, [param]: value } })
  }

  for (const [key, property] of Object.entries(querySchema?.properties ?? {})) {
    const redirects = redirectValues(key).map(([what, target]) => [what, encodeURIComponent(target)] as const)
    for (const [what, value] of [...badQueryValues(property), ...redirects, ...(key === "cursor" ? CRAFTED_CURSORS : [])]) {
      const rest = encodeQuery({ ...goodQuery, [key]: undefined })
      add(`query ${key} is ${what}`, { query: `${rest === "" ? "" : `${rest}&`}${encodeURIComponent(key)}=${value}` })
    }
    add(`query ${key} is repeated`, { query: encodeQuery({ ...goodQuery, [key]: ["a", "b"] }) })
  }
  add("a stray query with broken encoding", { query: `${encodeQuery(goodQuery)}&zz=%E0%A4%A&%ED%A0%80=1` })
  return cases
}
