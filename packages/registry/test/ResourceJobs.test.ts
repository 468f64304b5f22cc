import * as Fs from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { Ids } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { EdgeProviderLocal, JobHandlers, Jobs, LocalPages, ProvisioningJobs, ProvisioningMigrations, Worker } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DnsTargetsLive, PlatformDirectoryLive, Platforms, RegistryJobs, RegistryMigrations, StackDefinitions } from "../src/index.js"
import { TestCallers } from "./Callers.js"
import { eventually } from "@core/kernel/testing/poll"

const STACK = {
  templateId: "stk_01JTEST0000000000000000000",
  templateName: "shop",
  version: "1.0.0",
  resources: [
    { type: "pages", name: "web", environment: "prod", config: { files: { "index.html": "<h1>shop</h1>", "about/index.html": "about" } } },
    { type: "worker", name: "api", environment: "prod", config: { script: "export default { fetch() { return new Response('ok') } }" } },
    { type: "sql_db", name: "db", environment: "prod", config: {} },
    { type: "object_store", name: "files", environment: "prod", config: {} },
    { type: "kv", name: "cache", environment: "prod", config: {} },
    { type: "queue", name: "jobs", environment: "prod", config: {} }
  ]
}

const Stacks = Layer.succeed(StackDefinitions, StackDefinitions.of({
  latest: () => Effect.succeed(Option.none()),
  version: (name, version) => Effect.succeed(name === "shop" && version === "1.0.0" ? Option.some(STACK) : Option.none())
}))

const makeLayer = (driver: "pglite" | "pg", root: string) => {
  const services = Platforms.Default.pipe(
    Layer.provideMerge(Layer.mergeAll(TestCallers, Ids.layer)),
    Layer.provideMerge(TestDatabase.layer([RegistryMigrations, ProvisioningMigrations], { driver }))
  )
  const worker = Worker.layer({ pollMs: 50, backoffBaseMs: 50 }).pipe(
    // The registry's job types, and provisioning's own (`domain.add`) over the registry's ports.
    Layer.provide(JobHandlers.merge(RegistryJobs, ProvisioningJobs)),
    Layer.provide(Layer.mergeAll(EdgeProviderLocal.layer({ root, port: 8787 }), Stacks, DnsTargetsLive, PlatformDirectoryLive))
  )
  return worker.pipe(Layer.provideMerge(services))
}

for (const driver of TestDatabase.drivers) {
  describe(`resource jobs on the local edge (${driver})`, () => {
    const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "core-edge-test-"))
    let runtime: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<ReturnType<typeof makeLayer>>, unknown>
    let server: Http.Server
    let port: number
    let platform: string
    const run = <A>(effect: Effect.Effect<A, unknown, any>) => runtime.runPromise(effect as Effect.Effect<A, unknown, never>)
    const query = <T extends object = Record<string, unknown>>(text: string, params: ReadonlyArray<unknown> = []) =>
      run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<T>(text, params as Array<unknown>)))
    const enqueue = (type: string, payload: Record<string, unknown>) =>
      run(Effect.flatMap(SqlClient.SqlClient, (sql) => Jobs.enqueue(sql, { type, platformId: platform, organizationId: "org_a", payload })))
    const finished = async (jobId: string) => {
      const [job] = await eventually(
        () => query<{ status: string; result: unknown; error: string | null }>(`SELECT status, result, error FROM provisioning.jobs WHERE id = $1`, [jobId]),
        ([found]) => found?.status === "COMPLETED" || found?.status === "FAILED",
        { message: `job ${jobId} to finish`, timeout: 20_000 }
      )
      return { ...job!, result: typeof job!.result === "string" ? JSON.parse(job!.result) : job!.result }
    }
    const page = (project: string, path = "/") =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = Http.request({ host: "127.0.0.1", port, path, headers: { host: `${project}.localhost:${port}` } }, (response) => {
          let body = ""
          response.on("data", (chunk) => (body += chunk))
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body }))
        })
        request.on("error", reject)
        request.end()
      })
    const resources = () =>
      query<{ service_name: string; resource_type: string; edge_name: string; status: string; edge_id: string | null; edge_url: string | null }>(
        `SELECT service_name, resource_type, edge_name, status, edge_id, edge_url FROM registry.resources WHERE platform_id = $1 ORDER BY service_name`,
        [platform]
      )

    beforeAll(async () => {
      runtime = ManagedRuntime.make(makeLayer(driver, root))
      platform = (await run(Effect.flatMap(Platforms, (p) => p.create({ name: "Shop", slug: "edge-shop", organizationId: "org_a" })))).id
      const listener = await run(LocalPages.listener((_request, response) => {
        response.writeHead(418)
        response.end("gateway")
      }, { root }))
      server = Http.createServer(listener)
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      port = (server.address() as AddressInfo).port
    }, 60_000)
    afterAll(async () => {
      await new Promise((resolve) => server?.close(resolve))
      await runtime?.dispose()
      Fs.rmSync(root, { recursive: true, force: true })
    })

    it("stack.activate makes every resource of the definition real, active in the registry, and answers its stackInstanceId", async () => {
      const { jobId } = await enqueue("stack.activate", { platformId: platform, stackId: "shop", stackVersion: "1.0.0", environment: "prod" })
      const job = await finished(jobId)
      expect(job.error).toBeNull()
      expect(job.status).toBe("COMPLETED")
      expect(job.result.stackInstanceId).toMatch(/^sti_[0-9a-f]{26}$/)
      expect(job.result.resources).toHaveLength(6)
      expect(await resources()).toEqual([
        { service_name: "api", resource_type: "worker", edge_name: "edge-shop-prod-api", status: "active", edge_id: "local:worker:edge-shop-prod-api", edge_url: null },
        { service_name: "cache", resource_type: "kv", edge_name: "edge-shop-prod-cache", status: "active", edge_id: "local:kv:edge-shop-prod-cache", edge_url: null },
        { service_name: "db", resource_type: "sql_db", edge_name: "edge-shop-prod-db", status: "active", edge_id: "local:sql_db:edge-shop-prod-db", edge_url: null },
        { service_name: "files", resource_type: "object_store", edge_name: "edge-shop-prod-files", status: "active", edge_id: "local:object_store:edge-shop-prod-files", edge_url: null },
        { service_name: "jobs", resource_type: "queue", edge_name: "edge-shop-prod-jobs", status: "active", edge_id: "local:queue:edge-shop-prod-jobs", edge_url: null },
        { service_name: "web", resource_type: "pages", edge_name: "edge-shop-prod-web", status: "active", edge_id: "local:pages:edge-shop-prod-web", edge_url: "http://edge-shop-prod-web.localhost:8787/" }
      ])
      // Each really exists: a schema, a directory, two tables, a stored bundle, a served page.
      expect(await query(`SELECT schema_name FROM information_schema.schemata WHERE schema_name = 'edge_edge_shop_prod_db'`)).toHaveLength(1)
      expect(Fs.statSync(Path.join(root, "objects", "edge-shop-prod-files")).isDirectory()).toBe(true)
      expect(await query(`SELECT to_regclass('provisioning_edge.kv_edge_shop_prod_cache')::text AS kv, to_regclass('provisioning_edge.queue_edge_shop_prod_jobs')::text AS queue`))
        .toEqual([{ kv: "provisioning_edge.kv_edge_shop_prod_cache", queue: "provisioning_edge.queue_edge_shop_prod_jobs" }])
      await query(`INSERT INTO provisioning_edge.kv_edge_shop_prod_cache (key, value) VALUES ('a', '1')`)
      expect(await query(`SELECT script FROM provisioning.edge_resources WHERE resource_type = 'worker' AND edge_name = 'edge-shop-prod-api'`))
        .toEqual([{ script: STACK.resources[1]!.config.script }])
      expect(await page("edge-shop-prod-web")).toEqual({ status: 200, body: "<h1>shop</h1>" })
      expect(await page("edge-shop-prod-web", "/about/")).toEqual({ status: 200, body: "about" })
      expect((await page("edge-shop-prod-web", "/../../../etc/passwd")).status).toBe(404)
      expect((await page("nothing-here")).status).toBe(404)

      // A second run of the same activation makes nothing twice.
      const again = await finished((await enqueue("stack.activate", { platformId: platform, stackId: "shop", stackVersion: "1.0.0", environment: "prod" })).jobId)
      expect(again.status).toBe("COMPLETED")
      expect(again.result.stackInstanceId).toBe(job.result.stackInstanceId)
      expect(await resources()).toHaveLength(6)
      expect(await query(`SELECT count(*)::int AS n FROM provisioning.edge_resources`)).toEqual([{ n: 6 }])
      expect(await query(`SELECT value FROM provisioning_edge.kv_edge_shop_prod_cache`)).toEqual([{ value: "1" }])
    }, 60_000)

    it("a suspended platform's pages answer 451 until it is active again; other hosts reach the gateway", async () => {
      await query(`INSERT INTO provisioning.platform_status (platform_id, status, updated_at) VALUES ($1, 'suspended', now())
        ON CONFLICT (platform_id) DO UPDATE SET status = 'suspended'`, [platform])
      expect((await page("edge-shop-prod-web")).status).toBe(451)
      await query(`UPDATE provisioning.platform_status SET status = 'active' WHERE platform_id = $1`, [platform])
      expect(await page("edge-shop-prod-web")).toEqual({ status: 200, body: "<h1>shop</h1>" })
      const gateway = await new Promise<number>((resolve) =>
        Http.get({ host: "127.0.0.1", port, path: "/health" }, (response) => resolve(response.statusCode ?? 0)))
      expect(gateway).toBe(418)
    }, 30_000)

    it("app.create (fullstack, withDatabase) and domain.add", async () => {
      const app = await finished((await enqueue("app.create", { platformId: platform, stackId: "apps", appName: "blog", appType: "fullstack", withDatabase: true })).jobId)
      expect(app.status).toBe("COMPLETED")
      expect(app.result.url).toBe("http://edge-shop-prod-blog.localhost:8787/")
      expect(app.result.resources.map((r: { edgeName: string; status: string }) => [r.edgeName, r.status])).toEqual([
        ["edge-shop-prod-blog", "active"], ["edge-shop-prod-blog-api", "active"], ["edge-shop-prod-blog-db", "active"]
      ])
      expect((await page("edge-shop-prod-blog")).status).toBe(200)

      await query(`INSERT INTO registry.dns_records (id, platform_id, type, name, content, ttl) VALUES ('dns_1', $1, 'CNAME', 'www', 'edge-shop-prod-web.localhost', 300)`, [platform])
      const domain = await finished((await enqueue("domain.add", { platformId: platform, customHostname: "Shop.Example.com", targetDnsRecordId: "dns_1" })).jobId)
      expect(domain.status).toBe("COMPLETED")
      expect(domain.result).toEqual({ domainId: expect.stringMatching(/^dom_/), hostname: "shop.example.com", status: "active", verificationStatus: "verified" })
      expect(await query(`SELECT hostname, target, status FROM provisioning.edge_hostnames`)).toEqual([
        { hostname: "shop.example.com", target: "edge-shop-prod-web.localhost", status: "active" }
      ])
      const missing = await finished((await enqueue("domain.add", { platformId: platform, customHostname: "x.example.com", targetDnsRecordId: "dns_nope" })).jobId)
      expect(missing.status === "FAILED" || missing.error?.includes("DNS record dns_nope not found")).toBe(true)
    }, 60_000)

    it("stack.deactivate with deleteData removes the instance's resources and their data; platform.deprovision removes the rest", async () => {
      const [instance] = await query<{ id: string }>(`SELECT id FROM provisioning.stack_instances WHERE platform_id = $1`, [platform])
      const off = await finished((await enqueue("stack.deactivate", { platformId: platform, stackInstanceId: instance!.id, deleteData: true })).jobId)
      expect(off.status).toBe("COMPLETED")
      expect(off.result.removed).toHaveLength(6)
      expect(await query(`SELECT count(*)::int AS n FROM information_schema.schemata WHERE schema_name = 'edge_edge_shop_prod_db'`)).toEqual([{ n: 0 }])
      expect(Fs.existsSync(Path.join(root, "objects", "edge-shop-prod-files"))).toBe(false)
      expect(Fs.existsSync(Path.join(root, "pages", "edge-shop-prod-web"))).toBe(false)
      expect(await query(`SELECT to_regclass('provisioning_edge.kv_edge_shop_prod_cache')::text AS kv`)).toEqual([{ kv: null }])
      expect((await page("edge-shop-prod-web")).status).toBe(404)
      expect(await query(`SELECT status FROM provisioning.stack_instances WHERE id = $1`, [instance!.id])).toEqual([{ status: "deleted" }])

      const gone = await finished((await enqueue("platform.deprovision", { platformId: platform, environment: "prod" })).jobId)
      expect(gone.status).toBe("COMPLETED")
      expect((await resources()).every((r) => r.status === "deleted")).toBe(true)
      expect(await query(`SELECT count(*)::int AS n FROM provisioning.edge_resources WHERE platform_id = $1`, [platform])).toEqual([{ n: 0 }])
      expect(await query(`SELECT status FROM provisioning.domains WHERE platform_id = $1`, [platform])).toEqual([{ status: "deleted" }])
      expect(await query(`SELECT count(*)::int AS n FROM provisioning.edge_hostnames`)).toEqual([{ n: 0 }])
      expect((await page("edge-shop-prod-blog")).status).toBe(404)
    }, 60_000)

    it("platform.provision records the platform's worker and makes it active", async () => {
      const job = await finished((await enqueue("platform.provision", { platformId: platform, planTier: "starter", billingEmail: "a@b.co", environment: "dev" })).jobId)
      expect(job.error).toBeNull()
      expect(job.result.resources).toEqual([
        { id: expect.stringMatching(/^res_/), resourceType: "worker", edgeName: "edge-shop-dev-platform", status: "active", edgeUrl: null }
      ])
      const twice = await finished((await enqueue("platform.provision", { platformId: platform, planTier: "starter", billingEmail: "a@b.co", environment: "dev" })).jobId)
      expect(twice.result.resources).toEqual(job.result.resources)
    }, 60_000)
  })
}
