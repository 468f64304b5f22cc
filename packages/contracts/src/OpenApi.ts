import { z } from "zod"
import { ErrorEnvelope } from "./Envelope.js"
import { acceptedCallers, type CallerKind, pathParamNames, type ResponseSpec, type RouteSpec, toOpenApiPath } from "./Routes.js"

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1). */
export type JsonSchema = { readonly [key: string]: unknown }

/** An OpenAPI 3.1 document, loosely typed below the top level. */
export interface OpenApiDocument {
  readonly openapi: "3.1.0"
  readonly info: {
    readonly title: string
    readonly version: string
    readonly description?: string
    readonly license?: OpenApiLicense
  }
  readonly servers?: ReadonlyArray<OpenApiServer>
  readonly tags?: ReadonlyArray<{ readonly name: string; readonly description?: string }>
  readonly paths: Record<string, Record<string, Record<string, unknown>>>
  /** What the API posts to its users' endpoints (outbound webhooks), by event type. */
  readonly webhooks?: Record<string, Record<string, Record<string, unknown>>>
  readonly components: {
    readonly schemas: Record<string, JsonSchema>
    readonly securitySchemes: Record<string, Record<string, unknown>>
  }
}

/** A server of an OpenAPI document; `{name}` placeholders in `url` are described by `variables`. */
export interface OpenApiServer {
  readonly url: string
  readonly description?: string
  readonly variables?: Readonly<Record<string, { readonly default: string; readonly description?: string }>>
}

/** The license of the API (`identifier` an SPDX expression). */
export interface OpenApiLicense {
  readonly name: string
  readonly identifier?: string
}

/** What to describe. */
export interface OpenApiOptions {
  readonly title: string
  readonly version: string
  readonly description?: string
  readonly license?: OpenApiLicense
  readonly servers?: ReadonlyArray<OpenApiServer>
  /**
   * The routes sit behind the gateway's rate limiter: every route whose class is not `exempt` may
   * answer 429 `RATE_LIMITED` (with `Retry-After`). @default false
   */
  readonly rateLimited?: boolean
  readonly tags?: ReadonlyArray<{ readonly name: string; readonly description?: string }>
  /** A list of routes, or a named catalogue whose names become operation ids. */
  readonly routes: ReadonlyArray<RouteSpec> | Readonly<Record<string, RouteSpec>>
  /** Outbound webhooks (the `webhooks` section of OpenAPI 3.1): by name, what is posted. */
  readonly webhooks?: Readonly<Record<string, OutboundWebhook>>
}

/** One outbound webhook: the body the API posts and what it means. */
export interface OutboundWebhook {
  readonly summary: string
  readonly description?: string
  readonly body: z.ZodType
  readonly tags?: ReadonlyArray<string>
}

const SECURITY_SCHEMES = {
  sessionBearer: { type: "http", scheme: "bearer", description: "A session token" },
  sessionCookie: { type: "apiKey", in: "cookie", name: "core.session_token", description: "The session cookie" },
  apiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "An API key (core_…)" },
  serviceKey: { type: "http", scheme: "bearer", description: "The static service key or a service token" }
} as const

const SECURITY_OF_CALLER: Record<CallerKind, ReadonlyArray<Record<string, Array<string>>>> = {
  user: [{ sessionBearer: [] }, { sessionCookie: [] }],
  apikey: [{ apiKey: [] }],
  service: [{ serviceKey: [] }]
}

/** The security requirements of a route: one alternative per credential its callers may present. */
const securityOf = (route: RouteSpec): ReadonlyArray<Record<string, Array<string>>> =>
  route.auth === "session-cookie" ? [{ sessionCookie: [] }] : acceptedCallers(route).flatMap((kind) => SECURITY_OF_CALLER[kind])

const STATUS_TEXT: Record<number, string> = {
  200: "OK", 201: "Created", 202: "Accepted", 204: "No content", 301: "Moved permanently", 302: "Found",
  303: "See other", 307: "Temporary redirect", 400: "Bad request", 401: "Unauthorized", 402: "Payment failed",
  403: "Forbidden", 404: "Not found", 409: "Conflict", 413: "Payload too large", 415: "Unsupported media type",
  422: "Unprocessable content", 429: "Too many requests", 431: "Request headers too large", 451: "Platform suspended", 500: "Internal error",
  501: "Not implemented", 502: "Upstream unavailable", 503: "Unavailable", 504: "Upstream timeout"
}

const JSON_TYPES = new Set(["application/json", "application/x-www-form-urlencoded", "multipart/form-data"])

type Io = "input" | "output"

const toJsonSchema = (schema: z.ZodType, io: Io) =>
  z.toJSONSchema(schema, { target: "draft-2020-12", unrepresentable: "any", io, cycles: "ref", reused: "inline" }) as
    & Record<string, unknown>
    & { $defs?: Record<string, unknown> }

/**
 * Converts zod schemas, moving named schemas (`.meta({ id })`) into `components.schemas`: the
 * output form under the id, an input form that differs (defaults, transforms) under `<id>Input`,
 * and unnamed recursive schemas under `hint` (name them with `.meta({ id })` to choose).
 */
const makeConverter = () => {
  const components: Record<string, JsonSchema> = {}
  const rawByName = new Map<string, string>()

  const componentName = (preferred: string, raw: string): string => {
    const free = (candidate: string) => [undefined, raw].includes(rawByName.get(candidate))
    let name = preferred
    for (let i = 2; !free(name); i++) name = `${preferred}${i}`
    rawByName.set(name, raw)
    return name
  }

  const rewrite = (node: unknown, names: Map<string, string>): unknown => {
    if (Array.isArray(node)) return node.map((item) => rewrite(item, names))
    if (node === null || typeof node !== "object") return node
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node)) {
      out[key] = key === "$ref" && typeof value === "string" && value.startsWith("#/$defs/")
        ? `#/components/schemas/${names.get(value.slice("#/$defs/".length))}`
        : rewrite(value, names)
    }
    return out
  }

  const convert = (schema: z.ZodType, io: Io, hint: string): JsonSchema => {
    const { $defs, $schema: _dialect, ...root } = toJsonSchema(schema, io)
    const defs = Object.entries($defs ?? {})
    const outputDefs = io === "input" && defs.length > 0 ? toJsonSchema(schema, "output").$defs ?? {} : {}
    const names = new Map<string, string>()
    defs.forEach(([name, def], index) => {
      const raw = JSON.stringify(def)
      const base = name.startsWith("__schema") ? `${hint}${index === 0 ? "" : index + 1}` : name
      const differs = outputDefs[name] !== undefined && JSON.stringify(outputDefs[name]) !== raw
      names.set(name, componentName(differs ? `${base}Input` : base, raw))
    })
    for (const [name, def] of defs) components[names.get(name)!] = rewrite(def, names) as JsonSchema
    return rewrite(root, names) as JsonSchema
  }

  return { convert, components }
}

const operationIdOf = (route: RouteSpec): string => {
  const words = route.path
    .split("/")
    .filter((segment) => segment !== "")
    .map((segment) => {
      const param = /^(?::(\w+)|\{(\w+)\})$/.exec(segment)
      const word = param === null ? segment : `by-${param[1] ?? param[2]}`
      return word.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())
    })
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
  return route.method.toLowerCase() + words.join("")
}

const isSpec = (response: unknown): response is ResponseSpec =>
  typeof response === "object" && response !== null && !("_zod" in response)

const objectParameters = (
  convert: (schema: z.ZodType, io: Io, hint: string) => JsonSchema,
  schema: z.ZodType | undefined,
  location: "query" | "header",
  hint: string
): Array<Record<string, unknown>> => {
  if (schema === undefined) return []
  const json = convert(schema, "input", hint) as { properties?: Record<string, JsonSchema>; required?: Array<string> }
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property as { description?: string }
    return {
      name,
      in: location,
      required: json.required?.includes(name) ?? false,
      ...(description === undefined ? {} : { description }),
      schema: rest
    }
  })
}

/**
 * Describe a route catalogue as an OpenAPI 3.1 document: paths (`:param` as `{param}`), path, query
 * and header parameters, request bodies, responses by status (the error envelope for 4xx and 5xx,
 * including 400, 401, 403, 500 and, behind a rate limiter, 429 where a route can answer them),
 * security by `auth`, operation ids.
 */
export const toOpenApi = (options: OpenApiOptions): OpenApiDocument => {
  const { components, convert } = makeConverter()
  const errorRef = convert(ErrorEnvelope, "output", "ErrorEnvelope")
  const errorResponse = (status: number, description?: string) => ({
    description: description ?? STATUS_TEXT[status] ?? `Status ${status}`,
    content: { "application/json": { schema: errorRef } }
  })
  const entries: Array<readonly [string | undefined, RouteSpec]> = Array.isArray(options.routes)
    ? (options.routes as ReadonlyArray<RouteSpec>).map((route) => [undefined, route] as const)
    : Object.entries(options.routes as Record<string, RouteSpec>)
  const paths: OpenApiDocument["paths"] = {}
  const usedIds = new Set<string>()
  const tags = new Map((options.tags ?? []).map((tag) => [tag.name, tag]))

  for (const [name, route] of entries) {
    const base = route.operationId ?? name ?? operationIdOf(route)
    let operationId = base
    for (let i = 2; usedIds.has(operationId); i++) operationId = `${base}${i}`
    usedIds.add(operationId)
    const hint = operationId.charAt(0).toUpperCase() + operationId.slice(1)

    const paramsJson = route.request?.params === undefined
      ? undefined
      : (convert(route.request.params, "input", `${hint}Params`) as { properties?: Record<string, JsonSchema> })
    const parameters = [
      ...pathParamNames(route.path).map((param) => {
        const { description, ...schema } = (paramsJson?.properties?.[param] ?? { type: "string" }) as { description?: string }
        return { name: param, in: "path", required: true, ...(description === undefined ? {} : { description }), schema }
      }),
      ...objectParameters(convert, route.request?.query, "query", `${hint}Query`),
      ...objectParameters(convert, route.request?.headers, "header", `${hint}Headers`)
    ]

    const body = route.request?.body
    const contentTypes = route.request?.contentTypes ?? (body === undefined ? [] : ["application/json"])
    const requestBody = contentTypes.length === 0 ? undefined : {
      required: body === undefined ? route.request?.optionalBody !== true : !body.safeParse(undefined).success,
      content: Object.fromEntries(contentTypes.map((type) => [
        type,
        { schema: body !== undefined && JSON_TYPES.has(type) ? convert(body, "input", `${hint}Body`) : { type: "string", contentMediaType: type } }
      ]))
    }

    const responses: Record<string, unknown> = {}
    for (const [key, response] of Object.entries(route.responses)) {
      const status = Number(key)
      if (response === null) {
        responses[key] = status >= 400 ? errorResponse(status) : { description: STATUS_TEXT[status] ?? `Status ${status}` }
      } else if (isSpec(response)) {
        const contentType = response.contentType ?? "application/json"
        responses[key] = {
          description: response.description ?? STATUS_TEXT[status] ?? `Status ${status}`,
          ...(response.headers === undefined ? {} : {
            headers: Object.fromEntries(Object.entries(response.headers).map(([header, text]) => [header, { description: text, schema: { type: "string" } }]))
          }),
          ...(response.schema === undefined && response.contentType === undefined ? {} : {
            content: { [contentType]: { schema: response.schema === undefined ? { type: "string" } : convert(response.schema, "output", `${hint}Response${key}`) } }
          })
        }
      } else {
        responses[key] = { description: STATUS_TEXT[status] ?? `Status ${status}`, content: { "application/json": { schema: convert(response, "output", `${hint}Response${key}`) } } }
      }
    }
    const implied: Array<[number, boolean]> = [
      [400, parameters.length > 0 || requestBody !== undefined],
      [401, route.auth !== "public"],
      [403, route.auth === "operator" || route.auth === "service" || route.permission !== undefined],
      [429, options.rateLimited === true && route.rateLimit !== "exempt"],
      [500, true]
    ]
    for (const [status, applies] of implied) if (applies && responses[status] === undefined) responses[status] = errorResponse(status)

    for (const tag of route.tags ?? []) if (!tags.has(tag)) tags.set(tag, { name: tag })
    const path = toOpenApiPath(route.path)
    paths[path] ??= {}
    paths[path][route.method.toLowerCase()] = {
      operationId,
      summary: route.summary,
      ...(route.description === undefined ? {} : { description: route.description }),
      ...(route.tags === undefined ? {} : { tags: [...route.tags] }),
      ...(route.deprecated === true ? { deprecated: true } : {}),
      ...(parameters.length === 0 ? {} : { parameters }),
      ...(requestBody === undefined ? {} : { requestBody }),
      responses,
      security: securityOf(route),
      "x-core-auth": route.auth,
      ...(route.auth === "caller" && route.callers !== undefined ? { "x-core-callers": [...route.callers] } : {}),
      ...(route.tenant === undefined ? {} : { "x-core-tenant": route.tenant }),
      ...(route.rateLimit === undefined ? {} : { "x-core-rate-limit": route.rateLimit }),
      ...(route.permission === undefined ? {} : { "x-core-permission": route.permission })
    }
  }

  const webhooks = Object.fromEntries(Object.entries(options.webhooks ?? {}).map(([name, webhook]) => {
    const hint = `Webhook${name.split(/[._]/).map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join("")}`
    return [name, {
      post: {
        operationId: hint.charAt(0).toLowerCase() + hint.slice(1),
        summary: webhook.summary,
        ...(webhook.description === undefined ? {} : { description: webhook.description }),
        ...(webhook.tags === undefined ? {} : { tags: [...webhook.tags] }),
        requestBody: { required: true, content: { "application/json": { schema: convert(webhook.body, "output", hint) } } },
        // The receiver checks the signature headers, not credentials of the API's.
        security: [],
        responses: { "2XX": { description: "Received: any 2xx ends the delivery" }, "410": { description: "Gone: the endpoint is disabled" } }
      }
    }]
  }))

  return {
    openapi: "3.1.0",
    info: {
      title: options.title,
      version: options.version,
      ...(options.description === undefined ? {} : { description: options.description }),
      ...(options.license === undefined ? {} : { license: { ...options.license } })
    },
    ...(options.servers === undefined ? {} : { servers: options.servers.map((server) => ({ ...server })) }),
    ...(tags.size === 0 ? {} : { tags: [...tags.values()].map((tag) => ({ ...tag })) }),
    paths,
    ...(options.webhooks === undefined ? {} : { webhooks }),
    components: { schemas: components, securitySchemes: { ...SECURITY_SCHEMES } }
  }
}
