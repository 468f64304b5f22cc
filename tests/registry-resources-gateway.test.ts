import { Registry } from "@core/contracts"
import { createClient } from "@core/sdk"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launch, migratedDataDir, ready, type Running } from "../packages/server/test/ServerProcess.js"
import { SHARED_STATIC_KEY, useSharedServer } from "./support/sharedServer.js"

/**
 * Registry resources, DNS records and secrets as a caller meets them: through the gateway of the
 * real all-in-one server (`/api/v1/platforms/*`, `/api/v1/resources/*`, `/api/v1/lookup`), then
 * with the registry alone behind a gateway in another process (`CORE_UPSTREAM_REGISTRY_URL`),
 * where the resource family and the lookup travel over HTTP with their whole path.
 */
const SLOW = 180_000
const STATIC_KEY = SHARED_STATIC_KEY
const SECRET = "e2e-secret-resources-e2e-secret-0123456789"
const VALUE = "e2e-secret-value-that-never-comes-back"

interface Tenant {
  readonly token: string
  readonly platformId: string
  readonly entityId: string
}

const json = (method: string, body: unknown, headers: Record<string, string>) => ({
  method,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body)
})

/** Sign a user up through the gateway and set up its organization (and so its platform and default tenant). */
const tenantOf = async (base: string, name: string, slug: string): Promise<Tenant> => {
  const { token } = await createClient({ baseUrl: base }).iam.signUp({ name, email: `${slug}@example.com`, password: "correct horse battery" })
  const setup = await fetch(`${base}/api/v1/iam/api/core/org-setup`, json("POST", { name, slug }, { cookie: `core.session_token=${token}` }))
  expect(setup.status).toBe(201)
  const { orgId, platformId } = (await setup.json()) as { orgId: string; platformId: string }
  await createClient({ baseUrl: base, token }).iam.organizations.setActive({ organizationId: orgId })
  const entities = await fetch(`${base}/api/v1/platforms/${platformId}/entities?type=tenant`, { headers: { authorization: `Bearer ${token}` } })
  const entityId = ((await entities.json()) as { data: Array<{ id: string; slug: string }> }).data.find((e) => e.slug === "default")!.id
  return { token, platformId, entityId }
}

const codeOf = async (response: Response) => ((await response.json()) as { error: { code: string } }).error.code

/** Every resource route of both families, the lookups, DNS records and secrets, for one tenant behind one gateway. */
const exercise = async (base: string, ada: Tenant, bob: Tenant, edgeName: string) => {
  const as = (who: Tenant) => ({ authorization: `Bearer ${who.token}` })
  const created = await fetch(
    `${base}/api/v1/resources/platforms/${ada.platformId}/entities/${ada.entityId}/resources`,
    json("POST", { stackId: "stk_e2e", resourceType: "pages", serviceName: "site", environment: "prod", edgeName }, as(ada))
  )
  expect(created.status).toBe(201)
  const record = Registry.ResourceRecord.parse(await created.json())
  expect(record).toMatchObject({ platformId: ada.platformId, entityId: ada.entityId, status: "pending", stackId: "stk_e2e" })

  // Both families answer the same; the other tenant gets 404 from both.
  const [viaPlatforms, viaResources] = await Promise.all([
    fetch(`${base}/api/v1/platforms/${ada.platformId}/resources/${record.id}`, { headers: as(ada) }),
    fetch(`${base}/api/v1/resources/platforms/${ada.platformId}/resources/${record.id}`, { headers: as(ada) })
  ])
  expect([viaPlatforms.status, viaResources.status]).toEqual([200, 200])
  expect(await viaPlatforms.json()).toEqual(await viaResources.json())
  for (const path of [`/api/v1/platforms/${ada.platformId}/resources/${record.id}`, `/api/v1/resources/platforms/${ada.platformId}/resources/${record.id}`]) {
    const hidden = await fetch(`${base}${path}`, { headers: as(bob) })
    expect([hidden.status, await codeOf(hidden)]).toEqual([404, "NOT_FOUND"])
  }

  // Lookups: the caller's own platform, the static key any; another tenant 404.
  for (const lookup of ["/api/v1/lookup", "/api/v1/resources/lookup"]) {
    const own = await fetch(`${base}${lookup}?edgeName=${edgeName}`, { headers: as(ada) })
    expect(own.status, lookup).toBe(200)
    expect(((await own.json()) as { id: string }).id).toBe(record.id)
    expect((await fetch(`${base}${lookup}?edgeName=${edgeName}`, { headers: { authorization: `Bearer ${STATIC_KEY}` } })).status).toBe(200)
    expect((await fetch(`${base}${lookup}?edgeName=${edgeName}`, { headers: as(bob) })).status).toBe(404)
    expect((await fetch(`${base}${lookup}?edgeName=${edgeName}`)).status).toBe(401)
  }

  // PATCH with If-Match under the resource family; a stale tag is 412.
  const etag = viaResources.headers.get("etag")!
  const patched = await fetch(`${base}/api/v1/resources/platforms/${ada.platformId}/resources/${record.id}`, json("PATCH", { status: "active", edgeUrl: "https://site.example.com" }, { ...as(ada), "if-match": etag }))
  expect(patched.status).toBe(200)
  const stale = await fetch(`${base}/api/v1/platforms/${ada.platformId}/resources/${record.id}`, json("PATCH", { status: "failed" }, { ...as(ada), "if-match": etag }))
  expect([stale.status, await codeOf(stale)]).toEqual([412, "PRECONDITION_FAILED"])

  // A secret: set, listed without its value.
  const secrets = `${base}/api/v1/platforms/${ada.platformId}/resources/${record.id}/secrets`
  expect((await fetch(`${secrets}/API_TOKEN`, json("PUT", { value: VALUE }, as(ada)))).status).toBe(201)
  const listed = await fetch(secrets, { headers: as(ada) })
  const text = await listed.text()
  expect(listed.status).toBe(200)
  expect(text).not.toContain(VALUE)
  expect((JSON.parse(text) as Registry.SecretPage).data.map((s) => s.secretName)).toEqual(["API_TOKEN"])
  expect((await fetch(secrets, { headers: as(bob) })).status).toBe(404)

  // A DNS record.
  const dns = await fetch(`${base}/api/v1/platforms/${ada.platformId}/dns-records`, json("POST", { type: "CNAME", name: edgeName, content: "site.example.net", proxied: true }, as(ada)))
  expect(dns.status).toBe(201)
  expect(((await dns.json()) as { id: string }).id).toMatch(/^dns_/)
  expect((await fetch(`${base}/api/v1/platforms/${ada.platformId}/dns-records`, { headers: as(bob) })).status).toBe(404)

  // Soft delete under the resource family; the lookup no longer finds it.
  const deleted = await fetch(`${base}/api/v1/resources/platforms/${ada.platformId}/resources/${record.id}`, { method: "DELETE", headers: as(ada) })
  expect(await deleted.json()).toEqual({ success: true })
  expect((await fetch(`${base}/api/v1/lookup?edgeName=${edgeName}`, { headers: as(ada) })).status).toBe(404)
}

describe("registry resources through the all-in-one server's gateway", () => {
  const server = useSharedServer(SLOW)
  let ada: Tenant
  let bob: Tenant

  beforeAll(async () => {
    ada = await tenantOf(server.base, "Ada", "ada-res")
    bob = await tenantOf(server.base, "Bob", "bob-res")
  }, SLOW)

  it("serves both path families, both lookups, DNS records and secrets, with tenancy", async () => {
    await exercise(server.base, ada, bob, "ada-site")
  }, SLOW)

  it("refuses a race for one edgeName with one 201 and one 409, never a 500", async () => {
    const body = { stackId: "stk_e2e", resourceType: "kv", serviceName: "cache", environment: "dev", edgeName: "racy-edge" }
    const paths = [`/api/v1/platforms/${ada.platformId}`, `/api/v1/resources/platforms/${ada.platformId}`]
    const statuses = await Promise.all(paths.map((path) =>
      fetch(`${server.base}${path}/entities/${ada.entityId}/resources`, json("POST", body, { authorization: `Bearer ${ada.token}` })).then((r) => r.status)))
    expect(statuses.sort()).toEqual([201, 409])
  }, SLOW)

  it("lists the new routes in the gateway's OpenAPI document", async () => {
    const document = (await (await fetch(`${server.base}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> }
    expect(document.paths["/api/v1/lookup"].get.operationId).toBe("lookupResource")
    expect(document.paths["/api/v1/resources/platforms/{platformId}/entities/{entityId}/resources"].post.operationId).toBe("createResourceInResourcesFamily")
    expect(document.paths["/api/v1/platforms/{platformId}/resources/{resourceId}/secrets"].get.operationId).toBe("listResourceSecrets")
    expect(document.paths["/api/v1/platforms/{platformId}/dns-records/{recordId}"].delete.operationId).toBe("deleteDnsRecord")
  }, SLOW)
})

describe("registry resources with the registry alone (serve --service registry) behind a gateway", () => {
  const work = mkdtempSync(join(tmpdir(), "core-e2e-resources-"))
  let registry: Running
  let gateway: Running
  let base = ""

  beforeAll(async () => {
    registry = launch(["serve", "--service", "registry", "--port", "0"], { CORE_DATA_DIR: await migratedDataDir(join(work, "registry")), CORE_SECRET: SECRET })
    const registryUrl = await ready(registry)
    gateway = launch(["start"], {
      PORT: "0",
      CORE_DATA_DIR: await migratedDataDir(join(work, "gateway")),
      CORE_SECRET: SECRET,
      CORE_STATIC_API_KEY: STATIC_KEY,
      CORE_UPSTREAM_REGISTRY_URL: registryUrl
    })
    base = await ready(gateway)
  }, SLOW)

  afterAll(() => {
    registry?.child.kill("SIGKILL")
    gateway?.child.kill("SIGKILL")
    rmSync(work, { recursive: true, force: true })
  })

  it("forwards the resource family and the lookup with their whole path over HTTP", async () => {
    // The split registry has its own database: its platforms are created with the static key.
    const service = { authorization: `Bearer ${STATIC_KEY}` }
    const created = await fetch(`${base}/api/v1/platforms`, json("POST", { name: "Remote", slug: "remote-res" }, service))
    expect(created.status).toBe(201)
    const platformId = ((await created.json()) as { id: string }).id
    const entities = await fetch(`${base}/api/v1/platforms/${platformId}/entities`, { headers: service })
    const entityId = ((await entities.json()) as { data: Array<{ id: string }> }).data[0]!.id
    const resource = await fetch(
      `${base}/api/v1/resources/platforms/${platformId}/entities/${entityId}/resources`,
      json("POST", { stackId: "stk_remote", resourceType: "worker", serviceName: "api", environment: "stg", edgeName: "remote-edge" }, service)
    )
    expect(resource.status).toBe(201)
    const id = ((await resource.json()) as { id: string }).id
    for (const path of ["/api/v1/lookup?edgeName=remote-edge", "/api/v1/resources/lookup?edgeName=remote-edge", `/api/v1/platforms/${platformId}/resources/${id}`]) {
      const response = await fetch(`${base}${path}`, { headers: service })
      expect(response.status, path).toBe(200)
      expect(((await response.json()) as { id: string }).id).toBe(id)
    }
    const list = await fetch(`${base}/api/v1/resources/platforms/${platformId}/resources`, { headers: service })
    expect(((await list.json()) as { pagination: { total: number } }).pagination.total).toBe(1)
    expect((await fetch(`${base}/api/v1/lookup?edgeName=remote-edge`)).status).toBe(401)
  }, SLOW)
})
