/**
 * Writes the API reference, `docs/api/`, from the route catalogues of `@core/contracts`: one
 * Markdown page per service, every route with its method, gateway path, authentication, request
 * (path parameters, query, body fields), responses and errors, plus an index.
 *
 *   npm run generate:api
 *   (node --conditions=source --import tsx scripts/api-reference.ts)
 *
 * `tests/api-reference.test.ts` renders the pages again and fails when `docs/api/` differs.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as Contracts from "@core/contracts"
import { z } from "zod"
import { CATALOGUES, exportedCatalogues } from "../packages/contracts/scripts/route-table.js"
import { publicPathOf, SERVICE_DECLARATIONS, serviceDeclaration, type ServiceDeclaration, type ServiceName } from "../packages/contracts/src/ServiceDeclarations.js"
import { acceptedCallers, type ResponseSpec, type RouteResponse, type RouteSpec, toOpenApiPath } from "../packages/contracts/src/Routes.js"

/** Where the pages go. */
export const API_DIR = fileURLToPath(new URL("../docs/api/", import.meta.url))

type JsonSchema = { readonly [key: string]: any }

/** A page: the service (`ServiceDeclarations.ts`) whose catalogues it documents. */
interface Page {
  readonly file: string
  readonly title: string
  readonly intro: string
  readonly service: ServiceName
}

/** One page per declared service, in their order: `<tag>.md`, with the declaration's title and summary. */
export const PAGES: ReadonlyArray<Page> = SERVICE_DECLARATIONS.map((service) => ({
  file: `${service.tag.name}.md`,
  title: service.title,
  intro: service.summary,
  service: service.name
}))

const toJson = (schema: z.ZodType, io: "input" | "output"): JsonSchema =>
  z.toJSONSchema(schema, { target: "draft-2020-12", unrepresentable: "any", io, cycles: "ref", reused: "inline" }) as JsonSchema

const cell = (text: string): string => text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ")

/** A JSON Schema's type in a few words: `string (uuid)`, `integer ≥ 1`, `"a" \| "b"`, `array of object`. */
export const typeOf = (schema: JsonSchema | undefined): string => {
  if (schema === undefined || Object.keys(schema).length === 0) return "any"
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``
  if (Array.isArray(schema.enum)) return schema.enum.map((value: unknown) => `\`${JSON.stringify(value)}\``).join(" | ")
  const alternatives = schema.anyOf ?? schema.oneOf
  if (Array.isArray(alternatives)) return [...new Set(alternatives.map((inner: JsonSchema) => typeOf(inner)))].join(" or ")
  if (Array.isArray(schema.allOf)) return schema.allOf.map((inner: JsonSchema) => typeOf(inner)).join(" and ")
  if (schema.$ref !== undefined) return "object"
  const type = Array.isArray(schema.type) ? schema.type.join(" or ") : String(schema.type ?? "any")
  const facts: Array<string> = []
  if (schema.format !== undefined) facts.push(String(schema.format))
  if (schema.pattern !== undefined) facts.push(`pattern \`${schema.pattern}\``)
  if (schema.minLength !== undefined || schema.maxLength !== undefined) facts.push(`length ${schema.minLength ?? 0}–${schema.maxLength ?? "∞"}`)
  if (schema.minimum !== undefined) facts.push(`≥ ${schema.minimum}`)
  if (schema.exclusiveMinimum !== undefined) facts.push(`> ${schema.exclusiveMinimum}`)
  if (schema.maximum !== undefined && Math.abs(schema.maximum) < Number.MAX_SAFE_INTEGER) facts.push(`≤ ${schema.maximum}`)
  if (schema.maxItems !== undefined) facts.push(`at most ${schema.maxItems} items`)
  if (type === "array") return `array of ${typeOf(schema.items)}${facts.length === 0 ? "" : ` (${facts.join(", ")})`}`
  return facts.length === 0 ? type : `${type} (${facts.join(", ")})`
}

interface Field {
  readonly name: string
  readonly type: string
  readonly required: boolean
  readonly notes: string
}

/** The properties of an object schema, nested objects (and arrays of objects) as dotted names, two levels down. */
export const fieldsOf = (schema: JsonSchema, prefix = "", depth = 0): Array<Field> => {
  const object = Array.isArray(schema.anyOf) ? schema.anyOf.find((inner: JsonSchema) => inner.type === "object") ?? schema : schema
  const properties: Record<string, JsonSchema> = object.properties ?? {}
  const required = new Set<string>(object.required ?? [])
  return Object.entries(properties).flatMap(([name, property]) => {
    const notes = [
      property.description,
      property.default === undefined ? undefined : `default \`${JSON.stringify(property.default)}\``
    ].filter((note): note is string => typeof note === "string").join("; ")
    const field: Field = { name: `${prefix}${name}`, type: typeOf(property), required: required.has(name), notes }
    const inner = property.type === "array" ? property.items : property
    const nested = depth < 2 && inner !== undefined && inner.type === "object" && inner.properties !== undefined
      ? fieldsOf(inner, `${prefix}${name}${property.type === "array" ? "[]" : ""}.`, depth + 1)
      : []
    return [field, ...nested]
  })
}

const fieldTable = (fields: ReadonlyArray<Field>): Array<string> => [
  "| name | type | required | notes |",
  "|---|---|---|---|",
  ...fields.map((field) => `| \`${field.name}\` | ${cell(field.type)} | ${field.required ? "yes" : "no"} | ${cell(field.notes)} |`)
]

const isSpec = (response: RouteResponse): response is ResponseSpec =>
  response !== null && !(response instanceof z.ZodType)

const STATUS_TEXT: Record<number, string> = {
  200: "OK", 201: "Created", 202: "Accepted", 204: "No content", 301: "Moved permanently", 302: "Found", 303: "See other",
  307: "Temporary redirect", 400: "Bad request", 401: "Unauthorized", 402: "Payment failed", 403: "Forbidden",
  404: "Not found", 405: "Method not allowed", 409: "Conflict", 410: "Gone", 413: "Payload too large",
  415: "Unsupported media type", 422: "Unprocessable content", 428: "Precondition required", 429: "Too many requests",
  451: "Platform suspended", 500: "Internal error", 501: "Not implemented", 502: "Upstream unavailable",
  503: "Unavailable", 504: "Upstream timeout"
}

const AUTH_TEXT: Record<RouteSpec["auth"], string> = {
  public: "none (public)",
  "session-cookie": "the session cookie `core.session_token` only",
  caller: "a caller",
  operator: "an operator (or the static service key)",
  service: "the static service key or a service token"
}

/**
 * The route's path as clients call it through the gateway, and as the OpenAPI document lists it
 * (`publicPathOf`): `{param}` placeholders under its service's prefix.
 */
export const gatewayPath = (route: RouteSpec, service: ServiceDeclaration): string => toOpenApiPath(publicPathOf(service, route.path))

const authLine = (route: RouteSpec): string => {
  const parts = [AUTH_TEXT[route.auth]]
  if (route.auth === "caller") parts[0] = `a caller: ${acceptedCallers(route).map((kind) => ({ user: "session (bearer or cookie)", apikey: "API key (`x-api-key`)", service: "static service key" })[kind]).join(", ")}`
  if (route.permission !== undefined) parts.push(`permission \`${route.permission}\``)
  if (route.tenant !== undefined) parts.push(`scoped to the caller's ${route.tenant} (another tenant's records answer 404)`)
  return parts.join("; ")
}

const responseBody = (status: number, response: RouteResponse): Array<string> => {
  const schema = response instanceof z.ZodType ? response : isSpec(response) ? response.schema : undefined
  const description = isSpec(response) && response.description !== undefined ? response.description : STATUS_TEXT[status] ?? ""
  const lines = [`- **${status}** ${description}`]
  if (isSpec(response) && response.contentType !== undefined) lines[0] += ` (\`${response.contentType}\`)`
  if (isSpec(response) && response.headers !== undefined) {
    for (const [name, text] of Object.entries(response.headers)) lines.push(`  - header \`${name}\`: ${text}`)
  }
  if (schema === undefined) {
    if (response === null && status < 400) lines[0] += ": no body"
    return lines
  }
  const json = toJson(schema, "output")
  const fields = fieldsOf(json)
  if (fields.length === 0) {
    lines[0] += `: ${typeOf(json)}`
    return lines
  }
  lines[0] += ":"
  return [...lines, "", ...fieldTable(fields).map((line) => `  ${line}`), ""]
}

/** One route's section. */
export const renderRoute = (name: string, route: RouteSpec, service: ServiceDeclaration): Array<string> => {
  const lines = [`### \`${route.method} ${gatewayPath(route, service)}\``, "", `\`${route.operationId ?? name}\` — ${route.summary}${route.deprecated === true ? " (deprecated)" : ""}`, ""]
  if (route.description !== undefined) lines.push(route.description, "")
  lines.push(`Authentication: ${authLine(route)}.`, "")
  const request = route.request ?? {}
  for (const [part, title] of [["params", "Path parameters"], ["query", "Query"], ["headers", "Headers"]] as const) {
    const schema = request[part]
    if (schema === undefined) continue
    const fields = fieldsOf(toJson(schema, "input"))
    if (fields.length > 0) lines.push(`${title}:`, "", ...fieldTable(fields), "")
  }
  if (request.body !== undefined) {
    const types = request.contentTypes ?? ["application/json"]
    const json = toJson(request.body, "input")
    const fields = fieldsOf(json)
    lines.push(`Body (${types.map((type) => `\`${type}\``).join(", ")})${fields.length === 0 ? `: ${typeOf(json)}` : ":"}`, "")
    if (fields.length > 0) lines.push(...fieldTable(fields), "")
    if (route.bodyLimit !== undefined) lines.push(`At most ${route.bodyLimit} bytes.`, "")
  }
  const statuses = Object.keys(route.responses).map(Number).sort((a, b) => a - b)
  lines.push("Responses:", "")
  for (const status of statuses.filter((status) => status < 400)) lines.push(...responseBody(status, route.responses[status]!))
  const errors = statuses.filter((status) => status >= 400)
  lines.push("")
  if (errors.length > 0) {
    lines.push(`Errors (the error envelope \`{ error: { code, message, requestId, details } }\` unless shown): ${errors.map((status) => `${status} ${STATUS_TEXT[status] ?? ""}`.trim()).join(", ")}.`, "")
    for (const status of errors) {
      const response = route.responses[status]!
      if (response !== null) lines.push(...responseBody(status, response), "")
    }
  }
  return lines
}

const catalogueFor = (service: ServiceDeclaration) => {
  const exported = exportedCatalogues(Contracts as unknown as Record<string, unknown>)
  return CATALOGUES.filter((entry) => entry.service === service).map((entry) => ({
    name: entry.name,
    routes: exported.get(entry.namespace === "" ? entry.name : `${entry.namespace}.${entry.name}`)!
  }))
}

const GENERATED = "<!-- Generated by scripts/api-reference.ts from @core/contracts: do not edit. Run `npm run generate:api`. -->"

/** The pages of `docs/api/`, by file name. */
export const renderApiReference = (): ReadonlyMap<string, string> => {
  const pages = new Map<string, string>()
  const index = [GENERATED, "", "# API reference", "", "Every route of Core's services as the gateway serves them, generated from the route catalogues of `@core/contracts` (the same ones the servers, the SDK and the OpenAPI documents use). Errors use the envelope `{ error: { code, message, requestId, details } }`; identity's better-auth-compatible routes and OAuth endpoints keep their own bodies. Through the gateway, every route not exempt from rate limiting may also answer 429 `RATE_LIMITED` with `Retry-After`. The same routes, at the same paths, are in the OpenAPI 3.1 document the gateway serves at `/api/v1/openapi.json`.", "", "| service | routes |", "|---|---|"]
  for (const page of PAGES) {
    const lines = [GENERATED, "", `# ${page.title}`, "", page.intro, ""]
    let count = 0
    const service = serviceDeclaration(page.service)!
    for (const { name, routes } of catalogueFor(service)) {
      lines.push(`## ${name}`, "")
      for (const [routeName, route] of Object.entries(routes)) {
        lines.push(...renderRoute(routeName, route, service))
        count++
      }
    }
    pages.set(page.file, `${lines.join("\n").replace(/\n{3,}/g, "\n\n").trimEnd()}\n`)
    index.push(`| [${page.title}](${page.file}) | ${count} |`)
  }
  index.push("", "The [event catalogue](events-catalogue.md) lists every event Core records and delivers to webhook endpoints.")
  pages.set("README.md", `${index.join("\n")}\n`)
  pages.set("events-catalogue.md", renderEventCatalogue())
  return pages
}

/** `events-catalogue.md`: every event type of `Events.EVENT_CATALOGUE`, its version, meaning and the fields of its `data`. */
export const renderEventCatalogue = (): string => {
  const lines = [
    GENERATED, "", "# Event catalogue", "",
    "Every event Core records, as `GET /api/v1/events` lists it, `GET /api/v1/events/stream` streams it and webhook endpoints receive it " +
      "(see [docs/webhooks.md](../webhooks.md)). Each is `{ id, type, version, createdAt, platformId, organizationId, data }`; `data` is the " +
      "object as the API answers it after the change, `version` the version of its schema.", "",
    "| type | version | recorded by | what happened |", "|---|---|---|---|",
    ...Contracts.Events.EVENT_TYPES.map((type) => {
      const spec = Contracts.Events.EVENT_CATALOGUE[type]
      return `| [\`${type}\`](#${type.replace(/[._]/g, "")}) | ${spec.version} | ${spec.source} | ${cell(spec.description)} |`
    }),
    ""
  ]
  for (const type of Contracts.Events.EVENT_TYPES) {
    const spec = Contracts.Events.EVENT_CATALOGUE[type]
    lines.push(`## ${type}`, "", `${spec.description} Version ${spec.version}.`, "", "`data`:", "", "| name | type | required | notes |", "|---|---|---|---|")
    for (const field of fieldsOf(toJson(spec.data, "output"))) lines.push(`| \`${field.name}\` | ${cell(field.type)} | ${field.required ? "yes" : "no"} | ${cell(field.notes)} |`)
    lines.push("")
  }
  return `${lines.join("\n").trimEnd()}\n`
}

/** Write the pages into `dir`, removing any other Markdown file there. */
export const writeApiReference = (dir: string = API_DIR): void => {
  const pages = renderApiReference()
  mkdirSync(dir, { recursive: true })
  for (const file of readdirSync(dir)) if (file.endsWith(".md") && !pages.has(file)) rmSync(join(dir, file))
  for (const [file, text] of pages) writeFileSync(join(dir, file), text)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeApiReference()
  console.log(`api-reference: wrote ${API_DIR}`)
}
