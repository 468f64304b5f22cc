import { Registry } from "@core/contracts"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launch, migratedDataDir, ready, type Running } from "../packages/server/test/ServerProcess.js"
import { type Tenant, tenantOf } from "./support/tenants.js"
import { SHARED_STATIC_KEY, useSharedServer } from "./support/sharedServer.js"

/**
 * The registry as a caller meets it: behind the gateway of the real all-in-one server
 * (`core-server start`), which resolves the credentials with identity and signs the whole caller
 * for the registry (`X-Core-Identity`); the registry reads it with `ForwardedCallers`, without
 * identity's database. Then the registry alone (`core-server serve --service registry`) behind a
 * gateway in another process.
 */
const SLOW = 180_000
const STATIC_KEY = SHARED_STATIC_KEY
const SECRET = "e2e-secret-e2e-secret-e2e-secret-0123456789"


const get = (base: string, path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers })

const post = (base: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })

const codeOf = async (response: Response) => ((await response.json()) as { error: { code: string } }).error.code

describe("the registry through the all-in-one server's gateway", () => {
  const server = useSharedServer(SLOW)
  let ada: Tenant
  let bob: Tenant

  beforeAll(async () => {
    ada = await tenantOf(server.base, "Ada", "ada-co")
    bob = await tenantOf(server.base, "Bob", "bob-co")
  }, SLOW)

  it("answers a member its organization's platform (bearer or cookie), and another tenant's 404", async () => {
    const own = await get(server.base, `/api/v1/platforms/${ada.platformId}`, { authorization: `Bearer ${ada.token}` })
    expect(own.status).toBe(200)
    const record = Registry.PlatformRecord.parse(await own.json())
    expect(record).toMatchObject({ id: ada.platformId, organizationId: ada.orgId, slug: "ada-co", status: "active", tier: "free" })

    const byCookie = await get(server.base, `/api/v1/platforms/${ada.platformId}`, { cookie: `core.session_token=${ada.token}` })
    expect(byCookie.status).toBe(200)

    const other = await get(server.base, `/api/v1/platforms/${bob.platformId}`, { authorization: `Bearer ${ada.token}` })
    expect([other.status, await codeOf(other)]).toEqual([404, "NOT_FOUND"])
    const unknown = await get(server.base, "/api/v1/platforms/plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS", { authorization: `Bearer ${ada.token}` })
    expect(unknown.status).toBe(404)
    const malformed = await get(server.base, "/api/v1/platforms/plt_nope", { authorization: `Bearer ${ada.token}` })
    expect([malformed.status, await codeOf(malformed)]).toEqual([404, "NOT_FOUND"])
  }, SLOW)

  it("answers an API key of the organization holding platforms:read, and 403 to one without it", async () => {
    const reader = await ada.client.iam.apiKeys.create({ organizationId: ada.orgId, name: "reader", permissions: ["platforms:read"] })
    const withKey = await get(server.base, `/api/v1/platforms/${ada.platformId}`, { "x-api-key": reader.key })
    expect(withKey.status).toBe(200)
    expect(((await withKey.json()) as { id: string }).id).toBe(ada.platformId)
    const elsewhere = await get(server.base, `/api/v1/platforms/${bob.platformId}`, { "x-api-key": reader.key })
    expect(elsewhere.status).toBe(404)

    const auditor = await ada.client.iam.apiKeys.create({ organizationId: ada.orgId, name: "auditor", permissions: ["audit:read"] })
    const lacking = await get(server.base, `/api/v1/platforms/${ada.platformId}`, { "x-api-key": auditor.key })
    expect([lacking.status, await codeOf(lacking)]).toEqual([403, "FORBIDDEN"])
  }, SLOW)

  it("refuses a caller without credentials with 401", async () => {
    const anonymous = await get(server.base, `/api/v1/platforms/${ada.platformId}`)
    expect([anonymous.status, await codeOf(anonymous)]).toEqual([401, "UNAUTHORIZED"])
    const forged = await get(server.base, `/api/v1/platforms/${ada.platformId}`, { "x-core-user-id": ada.orgId, "x-core-role": "operator" })
    expect(forged.status).toBe(401)
  }, SLOW)

  it("creates a platform for the static key (201), never for a member (403)", async () => {
    const created = await post(server.base, "/api/v1/platforms", { name: "Ops", slug: "ops-platform" }, { authorization: `Bearer ${STATIC_KEY}` })
    expect(created.status).toBe(201)
    const record = Registry.PlatformRecord.parse(await created.json())
    expect(record).toMatchObject({ name: "Ops", slug: "ops-platform", tier: "starter", organizationId: null })
    expect((await get(server.base, `/api/v1/platforms/${record.id}`, { authorization: `Bearer ${STATIC_KEY}` })).status).toBe(200)
    expect((await get(server.base, `/api/v1/platforms/${record.id}`, { authorization: `Bearer ${ada.token}` })).status).toBe(404)

    const byMember = await post(server.base, "/api/v1/platforms", { name: "Mine", slug: "mine" }, { authorization: `Bearer ${ada.token}` })
    expect([byMember.status, await codeOf(byMember)]).toEqual([403, "FORBIDDEN"])
  }, SLOW)

  it("publishes the registry's routes in the gateway's OpenAPI document", async () => {
    const document = (await (await get(server.base, "/api/v1/openapi.json")).json()) as { paths: Record<string, Record<string, { operationId: string }>> }
    expect(document.paths["/api/v1/platforms/{platformId}"].get.operationId).toBe("getPlatform")
    expect(document.paths["/api/v1/platforms"].post.operationId).toBe("createPlatform")
  }, SLOW)
})

describe("the registry alone (serve --service registry) behind a gateway in another process", () => {
  const work = mkdtempSync(join(tmpdir(), "core-e2e-registry-"))
  let registry: Running
  let gateway: Running
  let base = ""
  let registryUrl = ""

  beforeAll(async () => {
    registry = launch(["serve", "--service", "registry", "--port", "0"], { CORE_DATA_DIR: await migratedDataDir(join(work, "registry")), CORE_SECRET: SECRET })
    registryUrl = await ready(registry)
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

  it("serves the callers the gateway signed over HTTP, and nobody who calls it directly", async () => {
    const service = { authorization: `Bearer ${STATIC_KEY}` }
    const created = await post(base, "/api/v1/platforms", { name: "Remote", slug: "remote" }, service)
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }
    expect((await get(base, `/api/v1/platforms/${id}`, service)).status).toBe(200)

    const carol = await tenantOf(base, "Carol", "carol-co")
    const hidden = await get(base, `/api/v1/platforms/${id}`, { authorization: `Bearer ${carol.token}` })
    expect([hidden.status, await codeOf(hidden)]).toEqual([404, "NOT_FOUND"])
    const byMember = await post(base, "/api/v1/platforms", { name: "Mine", slug: "carol-mine" }, { authorization: `Bearer ${carol.token}` })
    expect(byMember.status).toBe(403)
    expect((await get(base, `/api/v1/platforms/${id}`)).status).toBe(401)

    const direct = await get(registryUrl, `/${id}`, { ...service, "x-core-role": "service" })
    expect(direct.status).toBe(401)
  }, SLOW)
})
