import { Config as KernelConfig } from "@core/kernel"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option, Redacted } from "effect"
import { afterAll, beforeAll } from "vitest"
import { ProvisioningConfig } from "../src/Config.js"
import * as EdgeProviderCloudflare from "../src/adapters/EdgeProviderCloudflare.js"
import { PLACEHOLDER_SCRIPT } from "../src/adapters/cloudflare/CloudflareResources.js"
import type { JobFailed } from "../src/JobHandlers.js"
import { EdgeProvider, type EdgeResourceSpec, type EdgeResourceType } from "../src/ports/EdgeProvider.js"
import { type CloudflareStandIn, startCloudflareStandIn } from "./support/cloudflareStandIn.js"

const ACCOUNT = "0123456789abcdef0123456789abcdef"
const TOKEN = "cf-secret-token-never-shown"

let cf: CloudflareStandIn
beforeAll(async () => {
  cf = await startCloudflareStandIn({ accountId: ACCOUNT, token: TOKEN, workersSubdomain: "acme-edge", zones: ["core.example", "other.example"] })
})
afterAll(() => cf.close())

/** The adapter against the stand-in; `options` override the defaults. */
const provider = (options: Partial<EdgeProviderCloudflare.CloudflareEdgeOptions> = {}) =>
  Effect.provide(EdgeProvider, EdgeProviderCloudflare.layer({
    accountId: ACCOUNT,
    apiToken: Redacted.make(TOKEN),
    baseUrl: cf.baseUrl,
    maxRetryAfter: "20 millis",
    ...options
  }))

const spec = (platformId: string, resourceType: EdgeResourceType, edgeName: string, config: Record<string, unknown> = {}): EdgeResourceSpec =>
  ({ platformId, resourceType, edgeName, environment: "prod", config })

/** The JobFailed an effect ends with. */
const failure = <A>(effect: Effect.Effect<A, JobFailed>) => Effect.map(Effect.flip(effect), (error) => error.message)

/** Requests that change something on the edge (made since `mark`). */
const writes = (mark: number) => cf.since(mark).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`)

describe("EdgeProviderCloudflare against a stand-in of Cloudflare's API", () => {
  it.live("creates every resource kind with the documented requests, and nothing twice", () =>
    Effect.gen(function*() {
      const edge = yield* provider()
      expect(edge.name).toBe("cloudflare")
      const platform = "plt_create"
      const made = {
        worker: yield* edge.createResource(spec(platform, "worker", "acme-prod-api", { script: "export default {}" })),
        pages: yield* edge.createResource(spec(platform, "pages", "acme-prod-site", { productionBranch: "release" })),
        sql_db: yield* edge.createResource(spec(platform, "sql_db", "acme-prod-db")),
        object_store: yield* edge.createResource(spec(platform, "object_store", "acme-prod-files")),
        kv: yield* edge.createResource(spec(platform, "kv", "acme-prod-cache")),
        queue: yield* edge.createResource(spec(platform, "queue", "acme-prod-jobs"))
      }
      expect(made.worker).toEqual({ edgeId: "acme-prod-api", edgeUrl: "https://acme-prod-api.acme-edge.workers.dev" })
      expect(made.pages).toEqual({ edgeId: cf.state.projects.get("acme-prod-site")!.id, edgeUrl: "https://acme-prod-site.pages.dev" })
      expect(made.sql_db).toEqual({ edgeId: [...cf.state.databases.values()].find((d) => d.name === "acme-prod-db")!.uuid, edgeUrl: null })
      expect(made.object_store).toEqual({ edgeId: "acme-prod-files", edgeUrl: `https://${ACCOUNT}.r2.cloudflarestorage.com/acme-prod-files` })
      expect(made.kv).toEqual({ edgeId: [...cf.state.namespaces.values()].find((n) => n.title === "acme-prod-cache")!.id, edgeUrl: null })
      expect(made.queue).toEqual({ edgeId: [...cf.state.queues.values()].find((q) => q.queue_name === "acme-prod-jobs")!.queue_id, edgeUrl: null })

      // What Cloudflare received: a module script with its metadata and bindings, on workers.dev; the project's branch.
      const script = cf.state.scripts.get("acme-prod-api")!
      expect(script.content).toBe("export default {}")
      expect(script.workersDev).toBe(true)
      const control = [...cf.state.namespaces.values()].find((n) => n.title === "core-control")!
      expect(script.metadata).toEqual({
        main_module: "worker.js",
        compatibility_date: "2024-09-23",
        bindings: [
          { type: "kv_namespace", name: "CORE_CONTROL", namespace_id: control.id },
          { type: "plain_text", name: "CORE_PLATFORM_ID", text: platform },
          { type: "plain_text", name: "CORE_ENVIRONMENT", text: "prod" }
        ]
      })
      expect(cf.state.projects.get("acme-prod-site")!.production_branch).toBe("release")

      // A retried job: every lookup finds what the first run made; nothing is created again.
      const mark = cf.log.length
      for (const [type, name] of [["worker", "acme-prod-api"], ["pages", "acme-prod-site"], ["sql_db", "acme-prod-db"], ["object_store", "acme-prod-files"], ["kv", "acme-prod-cache"], ["queue", "acme-prod-jobs"]] as const) {
        expect(yield* edge.createResource(spec(platform, type, name))).toEqual(made[type])
      }
      expect(writes(mark).filter((w) => !w.includes("/storage/kv/namespaces/" + control.id + "/values/"))).toEqual([])
      expect(cf.state.scripts.get("acme-prod-api")!.content).toBe("export default {}")

      const listed = yield* edge.listResources(platform)
      expect([...listed].sort((a, b) => a.edgeName.localeCompare(b.edgeName))).toEqual([
        { resourceType: "worker", edgeName: "acme-prod-api", ...made.worker },
        { resourceType: "kv", edgeName: "acme-prod-cache", ...made.kv },
        { resourceType: "sql_db", edgeName: "acme-prod-db", ...made.sql_db },
        { resourceType: "object_store", edgeName: "acme-prod-files", ...made.object_store },
        { resourceType: "queue", edgeName: "acme-prod-jobs", ...made.queue },
        { resourceType: "pages", edgeName: "acme-prod-site", ...made.pages }
      ])
      expect(yield* edge.listResources("plt_someone_else")).toEqual([])
    }))

  it.live("a worker without a script gets the placeholder; deleteResource removes, keeps data unless asked, and absent is done", () =>
    Effect.gen(function*() {
      const edge = yield* provider()
      const platform = "plt_delete"
      for (const type of ["worker", "pages", "sql_db", "object_store", "kv", "queue"] as const) {
        yield* edge.createResource(spec(platform, type, `del-${type.replace("_", "-")}`))
      }
      expect(cf.state.scripts.get("del-worker")!.content).toBe(PLACEHOLDER_SCRIPT)

      // deleteData: false removes what serves and keeps what holds data (D1, R2, KV), still listed.
      for (const type of ["worker", "pages", "sql_db", "object_store", "kv", "queue"] as const) {
        yield* edge.deleteResource({ platformId: platform, resourceType: type, edgeName: `del-${type.replace("_", "-")}` }, { deleteData: false })
      }
      expect(cf.state.scripts.has("del-worker")).toBe(false)
      expect(cf.state.projects.has("del-pages")).toBe(false)
      expect([...cf.state.queues.values()].some((q) => q.queue_name === "del-queue")).toBe(false)
      expect([...cf.state.databases.values()].some((d) => d.name === "del-sql-db")).toBe(true)
      expect(cf.state.buckets.has("del-object-store")).toBe(true)
      expect((yield* edge.listResources(platform)).map((r) => r.resourceType).sort()).toEqual(["kv", "object_store", "sql_db"])

      // deleteData: true removes them; a non-empty bucket fails with Cloudflare's own words.
      cf.putObject("del-object-store", "a.txt")
      expect(yield* failure(edge.deleteResource({ platformId: platform, resourceType: "object_store", edgeName: "del-object-store" }, { deleteData: true })))
        .toBe(`Cloudflare DELETE /accounts/${ACCOUNT}/r2/buckets/del-object-store failed (409): The bucket you tried to delete is not empty. [10008]`)
      cf.state.buckets.get("del-object-store")!.objects.clear()
      for (const type of ["sql_db", "object_store", "kv"] as const) {
        yield* edge.deleteResource({ platformId: platform, resourceType: type, edgeName: `del-${type.replace("_", "-")}` }, { deleteData: true })
      }
      expect([...cf.state.databases.values()].some((d) => d.name === "del-sql-db")).toBe(false)
      expect(cf.state.buckets.has("del-object-store")).toBe(false)
      expect([...cf.state.namespaces.values()].some((n) => n.title === "del-kv")).toBe(false)
      expect(yield* edge.listResources(platform)).toEqual([])

      // Deleting what is not there (a retried deprovision) is done, not an error.
      for (const type of ["worker", "pages", "sql_db", "object_store", "kv", "queue"] as const) {
        yield* edge.deleteResource({ platformId: platform, resourceType: type, edgeName: `del-${type.replace("_", "-")}` }, { deleteData: true })
      }
      expect(yield* failure(edge.createResource(spec(platform, "nosql" as EdgeResourceType, "x")))).toBe(`Cloudflare: unknown resource type "nosql"`)
    }))

  it.live("puts worker scripts in a Workers for Platforms dispatch namespace when one is configured", () =>
    Effect.gen(function*() {
      cf.addDispatchNamespace("acme-platforms")
      const edge = yield* provider({ dispatchNamespace: "acme-platforms" })
      const handle = yield* edge.createResource(spec("plt_wfp", "worker", "tenant-a-api"))
      expect(handle).toEqual({ edgeId: "acme-platforms/tenant-a-api", edgeUrl: null })
      expect(cf.state.dispatch.get("acme-platforms")!.get("tenant-a-api")!.content).toBe(PLACEHOLDER_SCRIPT)
      expect(cf.state.scripts.has("tenant-a-api")).toBe(false)
      const mark = cf.log.length
      expect(yield* edge.createResource(spec("plt_wfp", "worker", "tenant-a-api"))).toEqual(handle)
      expect(writes(mark).filter((w) => w.includes("/workers/"))).toEqual([])
      yield* edge.deleteResource({ platformId: "plt_wfp", resourceType: "worker", edgeName: "tenant-a-api" }, { deleteData: true })
      expect(cf.state.dispatch.get("acme-platforms")!.has("tenant-a-api")).toBe(false)
      yield* edge.deleteResource({ platformId: "plt_wfp", resourceType: "worker", edgeName: "tenant-a-api" }, { deleteData: true })
    }))

  it.live("sets a worker's secret with Workers' secrets API (the account's, or the dispatch namespace's); a worker it lacks fails; the value is never shown", () =>
    Effect.gen(function*() {
      const edge = yield* provider()
      yield* edge.createResource(spec("plt_sec", "worker", "acme-prod-secrets"))
      const mark = cf.log.length
      yield* edge.setWorkerSecret({ platformId: "plt_sec", edgeName: "acme-prod-secrets", name: "API_KEY", value: Redacted.make("s3cret-value") })
      yield* edge.setWorkerSecret({ platformId: "plt_sec", edgeName: "acme-prod-secrets", name: "API_KEY", value: Redacted.make("s3cret-value-2") })
      expect(writes(mark)).toEqual([
        `PUT /accounts/${ACCOUNT}/workers/scripts/acme-prod-secrets/secrets`,
        `PUT /accounts/${ACCOUNT}/workers/scripts/acme-prod-secrets/secrets`
      ])
      expect(cf.state.secrets.get("/acme-prod-secrets")).toEqual(new Map([["API_KEY", "s3cret-value-2"]]))
      const missing = yield* failure(edge.setWorkerSecret({ platformId: "plt_sec", edgeName: "absent-worker", name: "A", value: Redacted.make("s3cret-value") }))
      expect(missing).toContain("404")
      expect(missing).not.toContain("s3cret")
      expect(missing).not.toContain(TOKEN)

      cf.addDispatchNamespace("secret-platforms")
      const wfp = yield* provider({ dispatchNamespace: "secret-platforms" })
      yield* wfp.createResource(spec("plt_sec", "worker", "tenant-secrets"))
      yield* wfp.setWorkerSecret({ platformId: "plt_sec", edgeName: "tenant-secrets", name: "DB_URL", value: Redacted.make("postgres://x") })
      expect(cf.state.secrets.get("secret-platforms/tenant-secrets")).toEqual(new Map([["DB_URL", "postgres://x"]]))
      cf.failNext(400, 10021, "Secret refused", /secrets$/)
      expect(yield* failure(wfp.setWorkerSecret({ platformId: "plt_sec", edgeName: "tenant-secrets", name: "DB_URL", value: Redacted.make("postgres://y") })))
        .toContain("Secret refused [10021]")
    }))

  it.live("adds a custom hostname on the zone holding the target (SSL for SaaS), once; removes it, twice", () =>
    Effect.gen(function*() {
      const edge = yield* provider()
      const zoneId = [...cf.state.zones].find(([, z]) => z.name === "core.example")![0]
      const added = yield* edge.addCustomHostname({ platformId: "plt_dom", hostname: "shop.customer.com", target: "acme.edge.core.example" })
      const stored = [...cf.state.zones.get(zoneId)!.hostnames.values()][0]!
      expect(added).toEqual({ edgeId: `${zoneId}/${stored.id}`, status: "pending" })
      expect(stored).toMatchObject({ hostname: "shop.customer.com", custom_origin_server: "acme.edge.core.example", ssl: { method: "http", type: "dv" } })

      cf.activateHostname("shop.customer.com")
      const mark = cf.log.length
      expect(yield* edge.addCustomHostname({ platformId: "plt_dom", hostname: "shop.customer.com", target: "acme.edge.core.example" }))
        .toEqual({ edgeId: added.edgeId, status: "active" })
      expect(writes(mark)).toEqual([])

      yield* edge.removeCustomHostname({ platformId: "plt_dom", edgeId: added.edgeId })
      expect(cf.state.zones.get(zoneId)!.hostnames.size).toBe(0)
      yield* edge.removeCustomHostname({ platformId: "plt_dom", edgeId: added.edgeId })
      expect(yield* failure(edge.addCustomHostname({ platformId: "plt_dom", hostname: "x.customer.com", target: "acme.nowhere.net" })))
        .toBe(`Cloudflare: no zone of account ${ACCOUNT} holds acme.nowhere.net`)
      expect(yield* failure(edge.removeCustomHostname({ platformId: "plt_dom", edgeId: "no-slash" })))
        .toBe(`Cloudflare: "no-slash" is not a custom hostname id (<zone>/<id>)`)
    }))

  it.live("features and platform status live in the control namespace; a suspension turns workers.dev off", () =>
    Effect.gen(function*() {
      const edge = yield* provider()
      const feature = { platformId: "plt_feat", entityId: "ent_1", featureId: "billing", environment: "prod" }
      yield* edge.activateFeature({ ...feature, featureVersion: "1.2.0" })
      expect(cf.kvValue("core-control", "platform:plt_feat:feature:ent_1:billing:prod")).toEqual({ value: JSON.stringify({ featureVersion: "1.2.0" }), metadata: { featureVersion: "1.2.0" } })
      yield* edge.deactivateFeature(feature)
      expect(cf.kvValue("core-control", "platform:plt_feat:feature:ent_1:billing:prod")).toBeUndefined()
      yield* edge.deactivateFeature(feature)

      yield* edge.createResource(spec("plt_feat", "worker", "feat-api"))
      yield* edge.setPlatformStatus("plt_feat", "suspended")
      expect(cf.kvValue("core-control", "platform:plt_feat:status")?.value).toBe("suspended")
      expect(cf.state.scripts.get("feat-api")!.workersDev).toBe(false)
      yield* edge.setPlatformStatus("plt_feat", "active")
      expect(cf.kvValue("core-control", "platform:plt_feat:status")?.value).toBe("active")
      expect(cf.state.scripts.get("feat-api")!.workersDev).toBe(true)
      // One control namespace, found again by a new adapter rather than made twice.
      const again = yield* provider()
      yield* again.setPlatformStatus("plt_feat", "active")
      expect([...cf.state.namespaces.values()].filter((n) => n.title === "core-control")).toHaveLength(1)
    }))

  it.live("a 429 waits out Retry-After (bounded) and tries again; past its retries it fails for the queue to retry", () =>
    Effect.gen(function*() {
      const edge = yield* provider({ maxRetryAfter: "50 millis", rateLimitRetries: 2 })
      cf.rateLimit(2, "3600")
      const started = Date.now()
      yield* edge.createResource(spec("plt_rl", "queue", "rl-queue"))
      const waited = Date.now() - started
      expect(waited).toBeGreaterThanOrEqual(95)
      expect(waited).toBeLessThan(3_000)
      expect(cf.log.filter((r) => r.status === 429)).toHaveLength(2)

      cf.rateLimit(3, "0")
      expect(yield* failure(edge.deleteResource({ platformId: "plt_rl", resourceType: "queue", edgeName: "rl-queue" }, { deleteData: true })))
        .toBe(`Cloudflare rate limit on GET /accounts/${ACCOUNT}/queues after 3 attempts: Please wait and consider throttling your request speed [971]`)
      cf.rateLimit(0)
    }))

  it.live("a refused token, a 5xx, an error envelope and an unreachable API are JobFailed with the API's words, never the token", () =>
    Effect.gen(function*() {
      const bad = yield* provider({ apiToken: Redacted.make("wrong-token") })
      const refused = yield* failure(bad.createResource(spec("plt_err", "kv", "err-kv")))
      expect(refused).toBe(
        `Cloudflare refused the API token (CLOUDFLARE_API_TOKEN) for GET /accounts/${ACCOUNT}/storage/kv/namespaces: Authentication error [10000]; ` +
          `check that it is valid and has this permission on account ${ACCOUNT}`
      )

      const edge = yield* provider()
      cf.failNext(502, 10013, "Bad gateway upstream", /POST .*\/d1\/database$/)
      expect(yield* failure(edge.createResource(spec("plt_err", "sql_db", "err-db"))))
        .toBe(`Cloudflare API error 502 on POST /accounts/${ACCOUNT}/d1/database: Bad gateway upstream [10013]`)
      cf.failNext(400, 8000000, "A name must be lower case", /POST .*\/pages\/projects$/)
      expect(yield* failure(edge.createResource(spec("plt_err", "pages", "Err-Pages"))))
        .toBe(`Cloudflare POST /accounts/${ACCOUNT}/pages/projects failed (400): A name must be lower case [8000000]`)

      const down = yield* provider({ baseUrl: "http://127.0.0.1:1/client/v4" })
      const unreachable = yield* failure(down.createResource(spec("plt_err", "queue", "err-queue")))
      expect(unreachable).toMatch(new RegExp(`^Cloudflare API unreachable \\(GET /accounts/${ACCOUNT}/queues\\): `))
      for (const message of [refused, unreachable]) expect(message).not.toContain(TOKEN)
    }))

  it.live("a failed platform status is a failure naming the platform (502 at /internal/platform-status), never the token", () =>
    Effect.gen(function*() {
      const bad = yield* provider({ apiToken: Redacted.make("wrong-token"), controlNamespace: "core-control-bad" })
      const exit = yield* Effect.exit(bad.setPlatformStatus("plt_x", "suspended"))
      expect(Exit.isFailure(exit) && Cause.isFailType(exit.cause) && exit.cause.error._tag === "JobFailed").toBe(true)
      expect(Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "").toContain("Cloudflare: the platform status of plt_x was not set: Cloudflare refused the API token")
      expect(Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "").not.toContain(TOKEN)
    }))

  it.live("configuration selects the adapter: Cloudflare with an account and token, else the one given", () =>
    Effect.gen(function*() {
      const local = Layer.succeed(EdgeProvider, EdgeProvider.of({ name: "local" } as never))
      const named = (cloudflare: Option.Option<{ accountId: string; apiToken: Redacted.Redacted<string> }>) =>
        Effect.map(
          Effect.provide(EdgeProvider, EdgeProviderCloudflare.whenConfigured(local).pipe(Layer.provide(ProvisioningConfig.layer({ cloudflare })))),
          (edge) => edge.name
        )
      expect(yield* named(Option.none())).toBe("local")
      expect(yield* named(Option.some({ accountId: ACCOUNT, apiToken: Redacted.make(TOKEN) }))).toBe("cloudflare")
    }))

  it.live("CLOUDFLARE_DISPATCH_NAMESPACE from the environment sends worker scripts to the dispatch namespace's upload path", () =>
    Effect.gen(function*() {
      cf.addDispatchNamespace("configured-platforms")
      const env = { CLOUDFLARE_ACCOUNT_ID: ACCOUNT, CLOUDFLARE_API_TOKEN: TOKEN, CLOUDFLARE_DISPATCH_NAMESPACE: "configured-platforms" }
      const local = Layer.succeed(EdgeProvider, {} as EdgeProvider["Type"])
      const edge = yield* Effect.provide(EdgeProvider, EdgeProviderCloudflare.whenConfigured(local, { baseUrl: cf.baseUrl, maxRetryAfter: "20 millis" }).pipe(
        Layer.provide(ProvisioningConfig.layerConfig),
        Layer.provide(Layer.setConfigProvider(KernelConfig.provider(env)))
      ))
      const mark = cf.log.length
      expect(yield* edge.createResource(spec("plt_env", "worker", "tenant-env-api", { script: "export default {}" })))
        .toEqual({ edgeId: "configured-platforms/tenant-env-api", edgeUrl: null })
      expect(writes(mark)).toContain(`PUT /accounts/${ACCOUNT}/workers/dispatch/namespaces/configured-platforms/scripts/tenant-env-api`)
      expect(cf.state.dispatch.get("configured-platforms")!.get("tenant-env-api")!.content).toBe("export default {}")
      expect(cf.state.scripts.has("tenant-env-api")).toBe(false)
    }))
})
