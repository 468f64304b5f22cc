import { Ajv2020 } from "ajv/dist/2020.js"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { cursorQuery, defineRoutes, type OpenApiDocument, page, PlatformId, type RouteSpec, toOpenApi, underGatewayPrefix } from "../src/index.js"
import { validateOpenApi31 } from "./OpenApiShape.js"

const COMPONENTS = ["DescendantsResponse200", "ErrorEnvelope", "PagePagination", "Platform"]

const Platform = z
  .object({
    id: PlatformId,
    name: z.string().min(1),
    tier: z.enum(["free", "starter", "growth", "scale"]).default("starter"),
    createdAt: z.date()
  })
  .meta({ id: "Platform" })

interface Entity {
  name: string
  children: Array<Entity>
}
const Entity: z.ZodType<Entity> = z.lazy(() => z.object({ name: z.string(), children: z.array(Entity) }))

const OAuthError = z.object({ error: z.string(), error_description: z.string().optional() })

const catalogue = defineRoutes({
  health: {
    method: "GET", path: "/health", summary: "Liveness", auth: "public",
    responses: { 200: { contentType: "text/plain", description: "The text ok" } }
  },
  listPlatforms: {
    method: "GET", path: "/api/v1/platforms", summary: "List platforms", auth: "caller", permission: "platforms:read", tags: ["platforms"],
    request: { query: cursorQuery().extend({ status: z.enum(["active", "suspended"]).optional() }) },
    responses: { 200: page(Platform) }
  },
  createPlatform: {
    method: "POST", path: "/api/v1/platforms", summary: "Create a platform", auth: "operator", tags: ["platforms"],
    request: { body: Platform.omit({ id: true, createdAt: true }) },
    responses: { 201: Platform, 409: null }
  },
  getPlatform: {
    method: "GET", path: "/api/v1/platforms/:platformId", summary: "Read a platform", auth: "caller", callers: ["user"],
    request: { params: z.object({ platformId: PlatformId }) },
    responses: { 200: Platform, 404: null }
  },
  updatePlatform: {
    method: "PATCH", path: "/api/v1/platforms/{platformId}", summary: "Update a platform", auth: "caller",
    request: { body: z.object({ name: z.string().min(1) }).optional() },
    responses: { 200: Platform }
  },
  deletePlatform: {
    method: "DELETE", path: "/api/v1/platforms/:platformId", summary: "Delete a platform", auth: "caller", deprecated: true,
    responses: { 204: null }
  },
  descendants: {
    method: "GET", path: "/api/v1/platforms/:platformId/entities/:entityId/descendants", summary: "Entity tree", auth: "caller",
    responses: { 200: z.object({ data: z.array(Entity) }) }
  },
  deploy: {
    method: "POST", path: "/api/v1/platforms/:platformId/deploy", summary: "Upload a site", auth: "caller", callers: ["user"],
    request: {
      contentTypes: ["application/gzip"],
      headers: z.object({ "idempotency-key": z.string().optional(), "x-core-deploy-branch": z.string().optional() })
    },
    responses: { 202: z.object({ deploymentId: z.string(), status: z.string() }), 413: null }
  },
  token: {
    method: "POST", path: "/oauth/token", summary: "Exchange a refresh token", auth: "public",
    request: {
      contentTypes: ["application/x-www-form-urlencoded", "application/json"],
      body: z.object({ grant_type: z.literal("refresh_token"), refresh_token: z.string(), client_id: z.literal("core-cli") })
    },
    responses: {
      200: { schema: z.object({ access_token: z.string() }), headers: { "cache-control": "no-store" } },
      400: { schema: OAuthError, description: "An OAuth error" }
    }
  }
})

const generate = () =>
  toOpenApi({
    title: "Core sample",
    version: "1.2.3",
    description: "A sample catalogue",
    servers: [{ url: "http://localhost:8787" }],
    tags: [{ name: "platforms", description: "The registry's platforms" }],
    routes: catalogue
  })

const operation = (doc: OpenApiDocument, path: string, method: string) => doc.paths[path][method] as Record<string, any>

describe("toOpenApi", () => {
  it("produces a structurally valid, JSON-serializable OpenAPI 3.1 document", () => {
    const doc = generate()
    expect(validateOpenApi31(doc)).toEqual([])
    expect(JSON.parse(JSON.stringify(doc))).toStrictEqual(doc)
    expect(doc.openapi).toBe("3.1.0")
    expect(doc.info).toEqual({ title: "Core sample", version: "1.2.3", description: "A sample catalogue" })
    expect(doc.servers).toEqual([{ url: "http://localhost:8787" }])
    expect(doc.tags).toEqual([{ name: "platforms", description: "The registry's platforms" }])
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/api/v1/platforms",
      "/api/v1/platforms/{platformId}",
      "/api/v1/platforms/{platformId}/deploy",
      "/api/v1/platforms/{platformId}/entities/{entityId}/descendants",
      "/health",
      "/oauth/token"
    ])
    expect(Object.keys(doc.paths["/api/v1/platforms/{platformId}"]).sort()).toEqual(["delete", "get", "patch"])
  })

  it("names operations after the catalogue and describes auth", () => {
    const doc = generate()
    const list = operation(doc, "/api/v1/platforms", "get")
    expect(list.operationId).toBe("listPlatforms")
    expect(list.security).toEqual([{ sessionBearer: [] }, { sessionCookie: [] }, { apiKey: [] }, { serviceKey: [] }])
    expect(list["x-core-permission"]).toBe("platforms:read")
    expect(operation(doc, "/health", "get").security).toEqual([])
    const create = operation(doc, "/api/v1/platforms", "post")
    expect(create.security).toEqual([{ sessionBearer: [] }, { sessionCookie: [] }, { serviceKey: [] }])
    expect(create["x-core-auth"]).toBe("operator")
    const read = operation(doc, "/api/v1/platforms/{platformId}", "get")
    expect(read.security).toEqual([{ sessionBearer: [] }, { sessionCookie: [] }])
    expect(read["x-core-callers"]).toEqual(["user"])
    expect(operation(doc, "/api/v1/platforms/{platformId}", "delete").deprecated).toBe(true)
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(["apiKey", "serviceKey", "sessionBearer", "sessionCookie"])
  })

  it("derives unique operation ids from method and path for unnamed routes", () => {
    const routes: Array<RouteSpec> = [catalogue.getPlatform, catalogue.descendants, catalogue.getPlatform]
    const doc = toOpenApi({ title: "t", version: "1", routes: [routes[0], routes[1], { ...routes[2], method: "HEAD" as const }] })
    expect(operation(doc, "/api/v1/platforms/{platformId}", "get").operationId).toBe("getApiV1PlatformsByPlatformId")
    expect(operation(doc, "/api/v1/platforms/{platformId}/entities/{entityId}/descendants", "get").operationId)
      .toBe("getApiV1PlatformsByPlatformIdEntitiesByEntityIdDescendants")
    expect(operation(doc, "/api/v1/platforms/{platformId}", "head").operationId).toBe("headApiV1PlatformsByPlatformId")
  })

  it("turns params, query and headers into parameters", () => {
    const doc = generate()
    expect(operation(doc, "/api/v1/platforms/{platformId}", "get").parameters).toEqual([
      {
        name: "platformId", in: "path", required: true,
        description: "An id with the prefix plt_ followed by 26 Crockford base32 characters",
        schema: { type: "string", pattern: "^plt_[0123456789ABCDEFGHJKMNPQRSTVWXYZ]{26}$", examples: ["plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS"] }
      }
    ])
    expect(operation(doc, "/api/v1/platforms/{platformId}", "delete").parameters).toEqual([
      { name: "platformId", in: "path", required: true, schema: { type: "string" } }
    ])
    const query = operation(doc, "/api/v1/platforms", "get").parameters
    expect(query.map((p: any) => [p.name, p.in, p.required])).toEqual([["cursor", "query", false], ["limit", "query", false], ["status", "query", false]])
    expect(query[1].schema).toEqual({ type: "integer", minimum: 1, maximum: 100, default: 25 })
    const deploy = operation(doc, "/api/v1/platforms/{platformId}/deploy", "post")
    expect(deploy.parameters.map((p: any) => `${p.in}:${p.name}`)).toEqual(["path:platformId", "header:idempotency-key", "header:x-core-deploy-branch"])
    expect(deploy.requestBody).toEqual({ required: true, content: { "application/gzip": { schema: { type: "string", contentMediaType: "application/gzip" } } } })
  })

  it("describes request bodies in each media type, optional ones as not required", () => {
    const doc = generate()
    const token = operation(doc, "/oauth/token", "post").requestBody
    expect(Object.keys(token.content)).toEqual(["application/x-www-form-urlencoded", "application/json"])
    expect(token.content["application/json"].schema.required).toEqual(["grant_type", "refresh_token", "client_id"])
    expect(token.required).toBe(true)
    expect(operation(doc, "/api/v1/platforms/{platformId}", "patch").requestBody.required).toBe(false)
  })

  it("answers errors with the envelope, and adds the statuses a route can answer", () => {
    const doc = generate()
    const envelope = { $ref: "#/components/schemas/ErrorEnvelope" }
    const get = operation(doc, "/api/v1/platforms/{platformId}", "get").responses
    expect(Object.keys(get).sort()).toEqual(["200", "400", "401", "404", "500"])
    expect(get["404"]).toEqual({ description: "Not found", content: { "application/json": { schema: envelope } } })
    expect(Object.keys(operation(doc, "/health", "get").responses).sort()).toEqual(["200", "500"])
    expect(Object.keys(operation(doc, "/api/v1/platforms", "post").responses).sort()).toEqual(["201", "400", "401", "403", "409", "500"])
    expect(operation(doc, "/api/v1/platforms/{platformId}", "delete").responses["204"]).toEqual({ description: "No content" })
    const token = operation(doc, "/oauth/token", "post").responses
    expect(token["400"].description).toBe("An OAuth error")
    expect(token["400"].content["application/json"].schema.properties.error).toEqual({ type: "string" })
    expect(token["200"].headers).toEqual({ "cache-control": { description: "no-store", schema: { type: "string" } } })
    expect(operation(doc, "/health", "get").responses["200"]).toEqual({ description: "The text ok", content: { "text/plain": { schema: { type: "string" } } } })
    expect(doc.components.schemas.ErrorEnvelope).toMatchObject({ type: "object", required: ["error"] })
  })

  it("moves named schemas to components, separating input and output forms", () => {
    const doc = generate()
    expect(Object.keys(doc.components.schemas).sort()).toEqual(COMPONENTS)
    expect(operation(doc, "/api/v1/platforms/{platformId}", "get").responses["200"].content["application/json"].schema)
      .toEqual({ $ref: "#/components/schemas/Platform" })
    const platform = doc.components.schemas.Platform as Record<string, any>
    expect(platform.required).toEqual(["id", "name", "tier", "createdAt"])
    expect(platform.properties.createdAt).toEqual({})
    const list = operation(doc, "/api/v1/platforms", "get").responses["200"].content["application/json"].schema
    expect(list.properties.data.items).toEqual({ $ref: "#/components/schemas/Platform" })
    expect(list.properties.pagination).toEqual({ $ref: "#/components/schemas/PagePagination" })
  })

  it("keeps a named schema's input form apart when it differs from its output form", () => {
    const doc = toOpenApi({
      title: "t",
      version: "1",
      routes: [{ method: "PUT", path: "/platforms", summary: "Replace", auth: "caller", request: { body: Platform }, responses: { 200: Platform } }]
    })
    const put = operation(doc, "/platforms", "put")
    expect(put.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/PlatformInput" })
    expect(put.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Platform" })
    expect((doc.components.schemas.PlatformInput as { required: Array<string> }).required).toEqual(["id", "name", "createdAt"])
    expect(validateOpenApi31(doc)).toEqual([])
  })

  it("writes schemas that a JSON Schema 2020-12 validator compiles and applies", () => {
    const doc = generate()
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    ajv.addSchema({ $id: "https://core.test/openapi.json", components: doc.components })
    const listSchema = operation(doc, "/api/v1/platforms", "get").responses["200"].content["application/json"].schema
    const rewrite = (node: unknown): unknown => JSON.parse(JSON.stringify(node).replaceAll("\"#/components/", "\"https://core.test/openapi.json#/components/"))
    const validateList = ajv.compile(rewrite(listSchema) as object)
    const platform = { id: "plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS", name: "Acme", tier: "growth", createdAt: "2026-01-01T00:00:00.000Z" }
    expect(validateList({ data: [platform], pagination: { hasMore: false, nextCursor: null, total: 1 } })).toBe(true)
    expect(validateList({ data: [{ ...platform, id: "usr_01JDQ3V6X4TQ7K9ZC2M8N5P0RS" }], pagination: { hasMore: false, nextCursor: null, total: 1 } })).toBe(false)
    expect(validateList({ data: [], pagination: { hasMore: false, total: 0 } })).toBe(false)
    const tree = ajv.compile(rewrite(operation(doc, "/api/v1/platforms/{platformId}/entities/{entityId}/descendants", "get").responses["200"].content["application/json"].schema) as object)
    expect(tree({ data: [{ name: "a", children: [{ name: "b", children: [] }] }] })).toBe(true)
    expect(tree({ data: [{ name: "a", children: [{ name: 1, children: [] }] }] })).toBe(false)
    const envelope = ajv.compile(rewrite({ $ref: "#/components/schemas/ErrorEnvelope" }) as object)
    expect(envelope({ error: { code: "NOT_FOUND", message: "x", requestId: "r", details: null } })).toBe(true)
    expect(envelope({ error: { code: "NOT_FOUND" } })).toBe(false)
  })
  it("marks a raw body that may be left out as optional, and one that may not as required", () => {
    const raw = (optionalBody?: boolean): RouteSpec => ({
      method: "POST", path: "/upload", summary: "Upload", auth: "caller",
      request: { contentTypes: ["application/gzip"], ...(optionalBody === undefined ? {} : { optionalBody }) },
      responses: { 202: null }
    })
    const requestBodyOf = (route: RouteSpec) => (toOpenApi({ title: "t", version: "1", routes: [route] }).paths["/upload"].post as any).requestBody
    expect(requestBodyOf(raw(true))).toEqual({ required: false, content: { "application/gzip": { schema: { type: "string", contentMediaType: "application/gzip" } } } })
    expect(requestBodyOf(raw()).required).toBe(true)
  })

  it("behind a rate limiter, adds 429 to every route not exempt; names its license and servers", () => {
    const routes = defineRoutes({
      limited: { method: "GET", path: "/limited", summary: "Limited", auth: "public", responses: { 200: null } },
      probe: { method: "GET", path: "/probe", summary: "Probe", auth: "public", rateLimit: "exempt", responses: { 200: null } }
    })
    const doc = toOpenApi({
      title: "t", version: "1", routes, rateLimited: true,
      license: { name: "Apache License 2.0", identifier: "Apache-2.0" },
      servers: [{ url: "{origin}", variables: { origin: { default: "http://localhost:8787" } } }]
    })
    expect(Object.keys(operation(doc, "/limited", "get").responses).sort()).toEqual(["200", "429", "500"])
    expect(Object.keys(operation(doc, "/probe", "get").responses).sort()).toEqual(["200", "500"])
    expect(Object.keys(operation(toOpenApi({ title: "t", version: "1", routes }), "/limited", "get").responses).sort()).toEqual(["200", "500"])
    expect(doc.info.license).toEqual({ name: "Apache License 2.0", identifier: "Apache-2.0" })
    expect(doc.servers).toEqual([{ url: "{origin}", variables: { origin: { default: "http://localhost:8787" } } }])
    expect(validateOpenApi31(doc)).toEqual([])
  })
})

describe("underGatewayPrefix", () => {
  it("puts a path under its service's prefix, unless it already is, and writes the service's / as the prefix", () => {
    expect(underGatewayPrefix("/api/v1/provisioning", "/api/v1/provision/jobs/{jobId}")).toBe("/api/v1/provisioning/api/v1/provision/jobs/{jobId}")
    expect(underGatewayPrefix("/api/v1/billing", "/plans")).toBe("/api/v1/billing/plans")
    expect(underGatewayPrefix("/api/v1/platforms", "/api/v1/platforms/{platformId}")).toBe("/api/v1/platforms/{platformId}")
    expect(underGatewayPrefix("/api/v1/platforms", "/api/v1/platformsx")).toBe("/api/v1/platforms/api/v1/platformsx")
    expect(underGatewayPrefix("/api/v1/iam", "/")).toBe("/api/v1/iam")
    expect(underGatewayPrefix("", "/health")).toBe("/health")
  })
})
