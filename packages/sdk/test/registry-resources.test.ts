import { afterEach, describe, expect, it } from "vitest"
import { BadRequestError, ConflictError, CoreApiError, NotFoundError, createClient } from "../src/index.js"
import { envelope, startScriptServer, type ScriptServer } from "./script-server.js"

/**
 * `client.registry.resources`, `.resourceFamily`, `.dnsRecords`, `.secrets` and `.features` against
 * a scripted server: each method's method, path, query and body as the catalogues
 * (`Registry.ResourceRoutes`, `ResourceFamilyRoutes`, `LookupRoutes`, `DnsRecordRoutes`,
 * `SecretRoutes`, `FeatureRoutes`) declare them, `all()` over every page, and the service's errors
 * as the SDK's classes.
 */
let server: ScriptServer | undefined
afterEach(async () => server?.close())

const PLATFORM = "plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS"
const ENTITY = "ent_01JDQ3V6X4TQ7K9ZC2M8N5P0RS"
const RESOURCE = "res_01JDQ3V6X4TQ7K9ZC2M8N5P0RS"
const ok = (body: object, status = 200) => ({ status, body })
const page = (data: Array<object>, nextCursor: string | null) => ({ data, pagination: { hasMore: nextCursor !== null, nextCursor, total: 2 } })
const resource = (id: string, edgeName: string) => ({
  id, platformId: PLATFORM, entityId: ENTITY, stackId: "web-app", resourceType: "worker", serviceName: "api", environment: "prod",
  edgeName, edgeId: null, edgeUrl: null, status: "pending", provisionJobId: null, config: {},
  createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", deletedAt: null
})
const client = () => createClient({ baseUrl: server!.url, token: "t" }).registry
const lines = () => server!.requests.map((r) => `${r.method} ${r.url}`)
const bodies = () => server!.requests.map((r) => (r.body === "" ? undefined : JSON.parse(r.body)))

describe("client.registry.resources and .resourceFamily", () => {
  for (const [name, prefix, lookup] of [
    ["resources", "/api/v1/platforms", "/api/v1/lookup"],
    ["resourceFamily", "/api/v1/resources/platforms", "/api/v1/resources/lookup"]
  ] as const) {
    it(`${name}: every route with its method, path, query and body`, async () => {
      const r = resource(RESOURCE, "acme-api")
      server = await startScriptServer([ok(r, 201), ok(page([r], null)), ok(page([r], null)), ok(r), ok({ ...r, status: "active" }), ok(r), ok({ success: true })])
      const resources = client()[name]
      const input = { stackId: "web-app", resourceType: "worker", serviceName: "api", environment: "prod", edgeName: "acme-api" } as const
      expect(await resources.create(PLATFORM, ENTITY, input)).toEqual(r)
      expect((await resources.list(PLATFORM, { limit: 5, resourceType: "worker", environment: "prod", status: "pending", entityId: ENTITY })).data).toEqual([r])
      expect((await resources.listForEntity(PLATFORM, ENTITY, { status: "deleted" })).data).toEqual([r])
      expect(await resources.get(PLATFORM, RESOURCE)).toEqual(r)
      expect((await resources.update(PLATFORM, RESOURCE, { status: "active" }, { headers: { "if-match": "\"3\"" } })).status).toBe("active")
      expect(await resources.lookup("acme api/é")).toEqual(r)
      expect(await resources.remove(PLATFORM, RESOURCE)).toEqual({ success: true })
      const base = `${prefix}/${PLATFORM}`
      expect(lines()).toEqual([
        `POST ${base}/entities/${ENTITY}/resources`,
        `GET ${base}/resources?limit=5&resourceType=worker&environment=prod&status=pending&entityId=${ENTITY}`,
        `GET ${base}/entities/${ENTITY}/resources?status=deleted`,
        `GET ${base}/resources/${RESOURCE}`,
        `PATCH ${base}/resources/${RESOURCE}`,
        `GET ${lookup}?edgeName=acme+api%2F%C3%A9`,
        `DELETE ${base}/resources/${RESOURCE}`
      ])
      expect(bodies()[0]).toEqual(input)
      expect(bodies()[4]).toEqual({ status: "active" })
      expect(server.requests[4]!.headers["if-match"]).toBe("\"3\"")
    })
  }

  it("all() and allForEntity() walk every page, keeping the filters", async () => {
    server = await startScriptServer([
      ok(page([resource("res_a", "a")], "n2")), ok(page([resource("res_b", "b")], null)),
      ok(page([resource("res_c", "c")], "m2")), ok(page([resource("res_d", "d")], null))
    ])
    const seen: Array<string> = []
    for await (const one of client().resources.all(PLATFORM, { limit: 1, environment: "dev" })) seen.push(one.edgeName)
    for await (const one of client().resources.allForEntity(PLATFORM, ENTITY, { limit: 1 })) seen.push(one.edgeName)
    expect(seen).toEqual(["a", "b", "c", "d"])
    const base = `/api/v1/platforms/${PLATFORM}`
    expect(server.requests.map((r) => r.url)).toEqual([
      `${base}/resources?limit=1&environment=dev`, `${base}/resources?limit=1&environment=dev&cursor=n2`,
      `${base}/entities/${ENTITY}/resources?limit=1`, `${base}/entities/${ENTITY}/resources?limit=1&cursor=m2`
    ])
  })

  it("answers 404, 409, 400 and 412 as NotFoundError, ConflictError, BadRequestError and a CoreApiError with the code", async () => {
    server = await startScriptServer([
      { status: 404, body: envelope("NOT_FOUND", "Resource not found", "req_1") },
      { status: 409, body: envelope("CONFLICT", "The edge name is taken", "req_2", { field: "edgeName" }) },
      { status: 400, body: envelope("VALIDATION_ERROR", "Invalid query", "req_3", { fields: { edgeName: "Required" } }) },
      { status: 412, body: envelope("PRECONDITION_FAILED", "The resource has changed", "req_4") }
    ])
    const resources = client().resources
    await expect(resources.lookup("nobody")).rejects.toBeInstanceOf(NotFoundError)
    await expect(resources.create(PLATFORM, ENTITY, { stackId: "s", resourceType: "kv", serviceName: "s", environment: "dev", edgeName: "x" }))
      .rejects.toMatchObject({ constructor: ConflictError, code: "CONFLICT", status: 409 })
    await expect(resources.lookup("")).rejects.toBeInstanceOf(BadRequestError)
    const stale = await resources.update(PLATFORM, RESOURCE, { status: "failed" }, { headers: { "if-match": "\"1\"" } }).catch((error: unknown) => error)
    expect(stale).toBeInstanceOf(CoreApiError)
    expect(stale).toMatchObject({ status: 412, code: "PRECONDITION_FAILED" })
  })
})

describe("client.registry.dnsRecords and .secrets", () => {
  it("calls each DNS record route and walks its pages", async () => {
    const record = { id: "dns_1", platformId: PLATFORM, type: "A", name: "www", content: "192.0.2.1", ttl: 1, proxied: false, priority: null, createdAt: "x", updatedAt: "x" }
    server = await startScriptServer([ok(record, 201), ok(page([record], "c2")), ok(page([record], null)), ok(record), ok({ success: true })])
    const dns = client().dnsRecords
    expect(await dns.create(PLATFORM, { type: "A", name: "www", content: "192.0.2.1" })).toEqual(record)
    const all: Array<string> = []
    for await (const one of dns.all(PLATFORM, { type: "A", name: "www" })) all.push(one.id)
    expect(all).toEqual(["dns_1", "dns_1"])
    expect(await dns.get(PLATFORM, "dns_1")).toEqual(record)
    expect(await dns.remove(PLATFORM, "dns_1")).toEqual({ success: true })
    const base = `/api/v1/platforms/${PLATFORM}/dns-records`
    expect(lines()).toEqual([`POST ${base}`, `GET ${base}?type=A&name=www`, `GET ${base}?type=A&name=www&cursor=c2`, `GET ${base}/dns_1`, `DELETE ${base}/dns_1`])
    expect(bodies()[0]).toEqual({ type: "A", name: "www", content: "192.0.2.1" })
  })

  it("sets a secret with its value in the body only, lists names, removes one", async () => {
    const secret = { id: "sec_1", resourceId: RESOURCE, secretName: "API_KEY", status: "active", lastSetAt: "x", createdAt: "x", updatedAt: "x" }
    server = await startScriptServer([ok(secret, 201), ok(page([secret], null)), ok(page([secret], null)), ok({ success: true })])
    const secrets = client().secrets
    expect(await secrets.set(PLATFORM, RESOURCE, "API_KEY", "s3cr3t value")).toEqual(secret)
    expect((await secrets.list(PLATFORM, RESOURCE, { status: "active", limit: 10 })).data).toEqual([secret])
    const names: Array<string> = []
    for await (const one of secrets.all(PLATFORM, RESOURCE)) names.push(one.secretName)
    expect(names).toEqual(["API_KEY"])
    expect(await secrets.remove(PLATFORM, RESOURCE, "API_KEY")).toEqual({ success: true })
    const base = `/api/v1/platforms/${PLATFORM}/resources/${RESOURCE}/secrets`
    expect(lines()).toEqual([`PUT ${base}/API_KEY`, `GET ${base}?status=active&limit=10`, `GET ${base}`, `DELETE ${base}/API_KEY`])
    expect(bodies()[0]).toEqual({ value: "s3cr3t value" })
    expect(server.requests[0]!.url).not.toContain("s3cr3t")
  })
})

describe("client.registry.features", () => {
  it("calls each feature route: list, all, activate (202 and 200), deactivate, get, manifest", async () => {
    const activation = { id: "act_1", platformId: PLATFORM, entityId: ENTITY, featureId: "billing", featureVersion: "1.0.0", environment: "prod", status: "pending",
      activatedAt: null, deactivatedAt: null, createdAt: "x", updatedAt: "x" }
    const started = { activationId: "act_1", featureId: "billing", status: "pending", provisionJobId: "job_1", estimatedDurationSeconds: 5 }
    const manifest = { platformId: PLATFORM, entityId: ENTITY, environment: "stg", features: [], generatedAt: "x" }
    server = await startScriptServer([
      ok(page([activation], null)), ok(page([activation], "f2")), ok(page([], null)), ok(started, 202), ok({ ...started, status: "active" }),
      ok({ featureId: "billing", status: "deactivating" }), ok(activation), ok(manifest), ok({ ...manifest, environment: "prod" })
    ])
    const features = client().features
    expect((await features.list(PLATFORM, ENTITY, { environment: "prod", status: "pending", featureId: "billing", limit: 3 })).data).toEqual([activation])
    const ids: Array<string> = []
    for await (const one of features.all(PLATFORM, ENTITY, { status: "active" })) ids.push(one.id)
    expect(ids).toEqual(["act_1"])
    expect(await features.activate(PLATFORM, ENTITY, { featureId: "billing", version: "1.0.0", environment: "prod", config: { package: "@acme/billing" } })).toEqual(started)
    expect((await features.activate(PLATFORM, ENTITY, { featureId: "billing", version: "1.0.0", environment: "prod" })).status).toBe("active")
    expect(await features.deactivate(PLATFORM, ENTITY, { featureId: "billing", environment: "prod" })).toEqual({ featureId: "billing", status: "deactivating" })
    expect(await features.get(PLATFORM, ENTITY, "act_1")).toEqual(activation)
    expect((await features.manifest(PLATFORM, ENTITY, { environment: "stg" })).environment).toBe("stg")
    expect((await features.manifest(PLATFORM, ENTITY)).environment).toBe("prod")
    const base = `/api/v1/platforms/${PLATFORM}/entities/${ENTITY}`
    expect(lines()).toEqual([
      `GET ${base}/features?environment=prod&status=pending&featureId=billing&limit=3`,
      `GET ${base}/features?status=active`,
      `GET ${base}/features?status=active&cursor=f2`,
      `POST ${base}/features/activate`,
      `POST ${base}/features/activate`,
      `POST ${base}/features/deactivate`,
      `GET ${base}/features/act_1`,
      `GET ${base}/manifest?environment=stg`,
      `GET ${base}/manifest`
    ])
    expect(bodies()[3]).toEqual({ featureId: "billing", version: "1.0.0", environment: "prod", config: { package: "@acme/billing" } })
    expect(bodies()[5]).toEqual({ featureId: "billing", environment: "prod" })
  })

  it("answers another tenant's entity as NotFoundError", async () => {
    server = await startScriptServer([{ status: 404, body: envelope("NOT_FOUND", "Entity not found", "req_1") }])
    await expect(client().features.manifest(PLATFORM, ENTITY)).rejects.toBeInstanceOf(NotFoundError)
  })
})

describe("client.registry.onboarding", () => {
  it("starts a flow and reads it; a slug taken is a ConflictError", async () => {
    const flow = { id: "onb_1", platformId: PLATFORM, platformName: "Acme", slug: "acme", stackTemplateId: "web-app", tier: "starter", billingEmail: "bills@acme.test",
      userId: null, status: "pending", provisionJobId: "job_1", jobStatus: "PENDING", progress: 0, steps: [], result: null, error: null,
      createdAt: "x", updatedAt: "x", completedAt: null }
    server = await startScriptServer([
      ok(flow, 202), ok({ ...flow, status: "completed", progress: 1 }),
      { status: 409, body: envelope("CONFLICT", "The slug is taken", "req_1", { field: "slug" }) }
    ])
    const onboarding = client().onboarding
    const input = { platformName: "Acme", slug: "acme", stackTemplateId: "web-app", billingEmail: "bills@acme.test" }
    expect(await onboarding.start(input)).toEqual(flow)
    expect((await onboarding.get("onb_1")).status).toBe("completed")
    await expect(onboarding.start(input)).rejects.toBeInstanceOf(ConflictError)
    expect(lines()).toEqual(["POST /api/v1/onboarding", "GET /api/v1/onboarding/onb_1", "POST /api/v1/onboarding"])
    expect(bodies()[0]).toEqual(input)
  })
})
