import { HttpApp, HttpRouter, HttpServerResponse } from "@effect/platform"
import { Billing, defineRoutes, Deploy, Events, Iam, Provisioning, Registry, type RouteSpec, Stacks, toOpenApiPath, underGatewayPrefix, Vault } from "@core/contracts"
import { Ajv2020 } from "ajv/dist/2020.js"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { validateOpenApi31 } from "../../contracts/test/OpenApiShape.js"
import * as OpenApiDocument from "../src/OpenApiDocument.js"
import * as Routes from "../src/Routes.js"

type Operation = Record<string, any>

const operations = (document: OpenApiDocument.GatewayDocument): Array<[string, string, Operation]> =>
  Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]): [string, string, Operation] => [path, method, op]))

const identityRoutes: Array<[string, RouteSpec]> = Object.entries(Iam.IdentityRoutes)
const identityPaths = new Set(identityRoutes.map(([, route]) => toOpenApiPath(route.path)))
/** The registry's routes under /api/v1/platforms and /api/v1/onboarding, and its resource family (/api/v1/resources) and lookup (/api/v1/lookup). */
const registryRoutes: Array<[string, RouteSpec]> = [Registry.RegistryRoutes, Registry.ResourceFamilyRoutes, Registry.LookupRoutes].flatMap((routes) =>
  Object.entries(routes) as Array<[string, RouteSpec]>)
const registryPaths = new Set(registryRoutes.map(([, route]) => toOpenApiPath(route.path)))
const stacksRoutes: Array<[string, RouteSpec]> = Object.entries(Stacks.StackRoutes)
const stacksPaths = new Set(stacksRoutes.map(([, route]) => toOpenApiPath(route.path)))
const provisioningRoutes: Array<[string, RouteSpec]> = Object.entries(Provisioning.ProvisioningRoutes)
const cliRoutes: Array<[string, RouteSpec]> = Object.entries(Deploy.CliRoutes)
const cliPaths = new Set(cliRoutes.map(([, route]) => toOpenApiPath(route.path)))
/** Billing's routes, declared under /api/billing or at the root, all at /api/v1/billing<path> (as the SDK calls them). */
const billingRoutes: Array<[string, RouteSpec]> = Object.entries(Billing.BillingRoutes)
const billingPaths = new Set(billingRoutes.map(([, route]) => toOpenApiPath(underGatewayPrefix("/api/v1/billing", route.path))))
const vaultRoutes: Array<[string, RouteSpec]> = Object.entries(Vault.VaultRoutes)
const vaultPaths = new Set(vaultRoutes.map(([, route]) => toOpenApiPath(route.path)))
const eventsRoutes: Array<[string, RouteSpec]> = [Events.WebhookRoutes, Events.EventRoutes].flatMap((routes) => Object.entries(routes))
const eventsPaths = new Set(eventsRoutes.map(([, route]) => toOpenApiPath(route.path)))

describe("OpenApiDocument.document", () => {
  it("is a structurally valid OpenAPI 3.1 document, the same object every time", () => {
    const document = OpenApiDocument.document()
    expect(validateOpenApi31(document)).toEqual([])
    expect(document.openapi).toBe("3.1.0")
    expect(document.info.title).toBe("Core API")
    expect(JSON.parse(JSON.stringify(document))).toStrictEqual(document)
    expect(OpenApiDocument.document()).toBe(document)
  })

  it("has every identity route under /api/v1/iam (the root's RFC 8414 metadata at its root path), with its operation id and identity tags", () => {
    const document = OpenApiDocument.document()
    for (const [name, route] of identityRoutes) {
      const path = route.path.startsWith("/.well-known/oauth-authorization-server/") ? route.path : underGatewayPrefix("/api/v1/iam", route.path)
      const op = document.paths[toOpenApiPath(path)]?.[route.method.toLowerCase()] as Operation | undefined
      expect(op, `${route.method} ${route.path}`).toBeDefined()
      expect(op?.operationId).toBe(name)
      expect(op?.summary).toBe(route.summary)
      for (const tag of op?.tags ?? []) expect(tag).toMatch(/^identity: /)
    }
    expect(document.paths["/api/v1/iam/api/core/apikey/validate"].post.operationId).toBe("validateApiKey")
    expect(document.paths["/api/v1/iam/api/v1/cli/whoami"].post.operationId).toBe("cliWhoami")
  })

  it("has the registry's routes under /api/v1/platforms, its base replaced by the prefix", () => {
    const document = OpenApiDocument.document()
    expect(document.paths["/api/v1/platforms"].post.operationId).toBe("createPlatform")
    expect(document.paths["/api/v1/platforms/{platformId}"].get.operationId).toBe("getPlatform")
    expect(document.paths["/api/v1/platforms/{platformId}"].get.tags).toEqual(["registry: platforms"])
  })

  it("has the registry's resource routes in both path families and both lookups, at their declared paths", () => {
    const document = OpenApiDocument.document()
    expect(document.paths["/api/v1/platforms/{platformId}/resources/{resourceId}"].patch.operationId).toBe("updateResource")
    expect(document.paths["/api/v1/resources/platforms/{platformId}/resources/{resourceId}"].patch.operationId).toBe("updateResourceInResourcesFamily")
    expect(document.paths["/api/v1/lookup"].get.operationId).toBe("lookupResource")
    expect(document.paths["/api/v1/resources/lookup"].get.operationId).toBe("lookupResourceInResourcesFamily")
    expect(document.paths["/api/v1/resources/lookup"].get.tags).toEqual(["registry: resources"])
    expect(document.paths["/api/v1/platforms/{platformId}/dns-records"].post.operationId).toBe("createDnsRecord")
    expect(document.paths["/api/v1/platforms/{platformId}/resources/{resourceId}/secrets/{secretName}"].put.operationId).toBe("setResourceSecret")
  })

  it("has onboarding at /api/v1/onboarding, where the gateway serves it, not under the platforms prefix", () => {
    const document = OpenApiDocument.document()
    expect(document.paths["/api/v1/onboarding"].post.operationId).toBe("startOnboarding")
    expect(document.paths["/api/v1/onboarding/{onboardingId}"].get.tags).toEqual(["registry: onboarding"])
    expect(Object.keys(document.paths).filter((path) => path.startsWith("/api/v1/platforms/api/"))).toEqual([])
  })

  it("names its server, its license and no path with a trailing slash (identity's home page is /api/v1/iam)", () => {
    const document = OpenApiDocument.document()
    expect(document.servers).toEqual([{
      url: "{origin}",
      description: "The gateway (the all-in-one server, or the gateway process)",
      variables: { origin: { default: "http://localhost:8787", description: "The gateway's origin: CORE_PUBLIC_URL" } }
    }])
    expect(document.info.license).toEqual({ name: "Apache License 2.0", identifier: "Apache-2.0" })
    expect(Object.keys(document.paths).filter((path) => path.length > 1 && path.endsWith("/"))).toEqual([])
    expect(document.paths["/api/v1/iam"].get.operationId).toBe("homePage")
  })

  it("has the stack catalogue's routes under /api/v1/stacks, its base replaced by the prefix", () => {
    const document = OpenApiDocument.document()
    expect(document.paths["/api/v1/stacks"].get.operationId).toBe("listStacks")
    expect(document.paths["/api/v1/stacks/{name}/versions"].post.operationId).toBe("createStackVersion")
    expect(document.paths["/api/v1/stacks/{name}/{version}"].delete.tags).toEqual(["stacks"])
  })

  it("has nothing but the gateway's own routes and the prefixed services' routes", () => {
    const document = OpenApiDocument.document()
    const prefixes = Routes.ROUTES.map((route) => route.prefix)
    const own: Array<string> = Object.values(OpenApiDocument.GatewayRoutes).map((route) => route.path)
    for (const [path] of operations(document)) {
      expect(own.includes(path) || prefixes.some((prefix) => Routes.isUnder(path, prefix)), path).toBe(true)
    }
    expect(operations(document)).toHaveLength(
      identityRoutes.length + registryRoutes.length + stacksRoutes.length + provisioningRoutes.length + cliRoutes.length +
        billingRoutes.length + vaultRoutes.length + eventsRoutes.length + own.length
    )
    expect(Object.keys(document.paths)).toHaveLength(
      identityPaths.size + registryPaths.size + stacksPaths.size + provisioningRoutes.length + cliPaths.size + billingPaths.size +
        vaultPaths.size + eventsPaths.size + own.length
    )
    console.log(`openapi.json: ${identityRoutes.length} identity operations on ${identityPaths.size} paths; ${operations(document).length} operations on ${Object.keys(document.paths).length} paths in all`)
    expect(document.paths["/health"].get["x-core-auth"]).toBe("public")
    expect(document.paths["/api/v1/openapi.json"].get["x-core-auth"]).toBe("public")
  })

  it("lists every event type of the catalogue in its webhooks section, each posting that type's event", () => {
    const document = OpenApiDocument.document()
    expect(Object.keys(document.webhooks ?? {})).toEqual([...Events.EVENT_TYPES])
    const created = (document.webhooks!["platform.created"].post as Operation & { requestBody: { content: Record<string, { schema: any }> } })
    expect(created.summary).toBe(Events.EVENT_CATALOGUE["platform.created"].description)
    const schema = created.requestBody.content["application/json"].schema
    expect(schema.properties.type).toEqual({ type: "string", const: "platform.created" })
    expect(schema.required).toEqual(expect.arrayContaining(["id", "type", "version", "createdAt", "organizationId", "data"]))
  })

  it("groups tags by service, and lists only the tags operations use", () => {
    const document = OpenApiDocument.document()
    const used = new Set(operations(document).flatMap(([, , op]) => op.tags as Array<string>))
    expect(new Set(document.tags?.map((tag) => tag.name))).toEqual(used)
    const identityTags = [...new Set(identityRoutes.flatMap(([, route]) => route.tags ?? []))]
    expect(identityTags.length).toBeGreaterThan(1)
    expect(document["x-tagGroups"]).toEqual([
      { name: "gateway", tags: ["gateway"] },
      { name: "identity", tags: identityTags },
      { name: "registry", tags: [...new Set(registryRoutes.flatMap(([, route]) => route.tags ?? []))] },
      { name: "stacks", tags: ["stacks"] },
      { name: "provisioning", tags: ["provisioning: domains", "provisioning: jobs", "provisioning: operator", "provisioning: internal"] },
      { name: "billing", tags: [...new Set(billingRoutes.flatMap(([, route]) => route.tags ?? []))] },
      { name: "cli", tags: ["cli"] },
      { name: "vault", tags: [...new Set(vaultRoutes.flatMap(([, route]) => route.tags ?? ["vault"]))] },
      { name: "events", tags: ["events"] }
    ])
  })

  it("has provisioning's routes under /api/v1/provisioning at their documented paths, as the SDK calls them", () => {
    const document = OpenApiDocument.document()
    expect(document.paths["/api/v1/provisioning/api/v1/provision/jobs/{jobId}"].get.operationId).toBe("getJob")
    expect(document.paths["/api/v1/provisioning/jobs/{jobId}"]).toBeUndefined()
    expect(document.paths["/api/v1/provisioning/internal/platform-status"].post["x-core-auth"]).toBe("service")
  })

  it("writes component schemas a JSON Schema 2020-12 validator compiles", () => {
    const document = OpenApiDocument.document()
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    ajv.addSchema({ $id: "https://core.test/openapi.json", components: document.components })
    const ref = (name: string) => ajv.compile({ $ref: `https://core.test/openapi.json#/components/schemas/${name}` })
    for (const name of Object.keys(document.components.schemas)) expect(() => ref(name), name).not.toThrow()
    const envelope = ref("ErrorEnvelope")
    expect(envelope({ error: { code: "NOT_FOUND", message: "x", requestId: "r", details: null } })).toBe(true)
    expect(envelope({ error: { code: "NOT_FOUND" } })).toBe(false)
  })
})

describe("OpenApiDocument.make", () => {
  const Thing = z.object({ id: z.string() }).meta({ id: "Thing" })
  const OtherThing = z.object({ id: z.number(), size: z.number() }).meta({ id: "Thing" })
  const Shared = z.object({ ok: z.boolean() }).meta({ id: "Shared" })
  const contract = (
    service: Routes.ServiceName,
    prefix: string,
    name: string,
    routes: Readonly<Record<string, RouteSpec>>,
    base?: string
  ): OpenApiDocument.ServiceContract => ({ service, prefix, tag: { name, description: `The ${name} service` }, catalogues: [routes], ...(base === undefined ? {} : { base }) })

  const merged = () =>
    OpenApiDocument.make({
      servers: [{ url: "https://core.example.com" }],
      contracts: [
        contract("BILLING", "/api/v1/billing", "billing", defineRoutes({
          getThing: { method: "GET", path: "/api/billing/things/:id", summary: "A thing", auth: "caller", responses: { 200: Thing, 404: null } },
          health: { method: "GET", path: "/status", summary: "Billing status", auth: "public", tags: ["ops"], responses: { 200: Shared } }
        }), "/api/billing"),
        contract("STACKS", "/api/v1/stacks", "stacks", defineRoutes({
          getThing: { method: "GET", path: "/things/:id", summary: "Another thing", auth: "caller", tags: ["stacks: catalogue"], responses: { 200: OtherThing } },
          ping: { method: "GET", path: "/ping", summary: "Ping", auth: "public", responses: { 200: Shared } }
        }))
      ]
    })

  it("puts every path under its prefix whole (the service's base kept), as clients call it through the gateway", () => {
    const document = merged()
    expect(Object.keys(document.paths).sort()).toEqual([
      "/api/v1/billing/api/billing/things/{id}",
      "/api/v1/billing/status",
      "/api/v1/stacks/ping",
      "/api/v1/stacks/things/{id}"
    ])
    expect(document.servers).toEqual([{ url: "https://core.example.com" }])
    expect(validateOpenApi31(document)).toEqual([])
  })

  it("keeps shared schemas once, tells clashing ones apart, and suffixes clashing operation ids", () => {
    const document = merged()
    const schemaOf = (path: string) => (document.paths[path].get as Operation).responses["200"].content["application/json"].schema
    expect(schemaOf("/api/v1/billing/api/billing/things/{id}")).toEqual({ $ref: "#/components/schemas/Thing" })
    expect(schemaOf("/api/v1/stacks/things/{id}")).toEqual({ $ref: "#/components/schemas/Thing2" })
    expect((document.components.schemas.Thing2 as { required: Array<string> }).required).toEqual(["id", "size"])
    expect(schemaOf("/api/v1/billing/status")).toEqual(schemaOf("/api/v1/stacks/ping"))
    expect(Object.keys(document.components.schemas).sort()).toEqual(["ErrorEnvelope", "Shared", "Thing", "Thing2"])
    expect([document.paths["/api/v1/billing/api/billing/things/{id}"].get.operationId, document.paths["/api/v1/stacks/things/{id}"].get.operationId])
      .toEqual(["getThing", "getThing2"])
  })

  it("tags each service's operations under its name", () => {
    const document = merged()
    const tagsOf = (path: string) => (document.paths[path].get as Operation).tags
    expect(tagsOf("/api/v1/billing/api/billing/things/{id}")).toEqual(["billing"])
    expect(tagsOf("/api/v1/billing/status")).toEqual(["billing: ops"])
    expect(tagsOf("/api/v1/stacks/things/{id}")).toEqual(["stacks: catalogue"])
    expect(document.tags).toEqual([
      { name: "billing", description: "The billing service" },
      { name: "stacks", description: "The stacks service" },
      { name: "billing: ops" },
      { name: "stacks: catalogue" }
    ])
    expect(document["x-tagGroups"]).toEqual([
      { name: "billing", tags: ["billing", "billing: ops"] },
      { name: "stacks", tags: ["stacks: catalogue", "stacks"] }
    ])
  })
})

describe("OpenApiDocument.route", () => {
  const handler = HttpApp.toWebHandler(OpenApiDocument.route)

  it("serves the document as JSON, publicly cacheable for five minutes", async () => {
    const response = await handler(new Request("http://localhost/api/v1/openapi.json"))
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/json")
    expect(response.headers.get("cache-control")).toBe("public, max-age=300")
    expect(await response.json()).toEqual(OpenApiDocument.document())
  })

  it("leaves other paths and methods to the routes after it", async () => {
    const app = HttpApp.toWebHandler(HttpRouter.concat(OpenApiDocument.route, HttpRouter.empty.pipe(HttpRouter.get("/health", HttpServerResponse.text("ok")))))
    expect(await (await app(new Request("http://localhost/health"))).text()).toBe("ok")
    expect((await app(new Request("http://localhost/api/v1/openapi.json", { method: "POST" }))).status).toBe(404)
  })
})
