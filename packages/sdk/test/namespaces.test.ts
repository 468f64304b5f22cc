import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { build } from "esbuild"
import { afterEach, describe, expect, expectTypeOf, it } from "vitest"
import { InternalServerError, createClient, createCoreClient, registry, stacks } from "../src/index.js"
import { startScriptServer, type ScriptServer } from "./script-server.js"

let server: ScriptServer | undefined
afterEach(async () => server?.close())

const source = join(import.meta.dirname, "..", "src", "index.ts")

/** The browser bundle of `code` (importing the SDK's source), minified, with the modules in it. */
const bundle = async (code: string) => {
  const result = await build({
    stdin: { contents: code.replaceAll("@core/sdk", source), resolveDir: import.meta.dirname, loader: "ts" },
    bundle: true, write: false, metafile: true, minify: true, format: "esm", platform: "browser", conditions: ["source"], logLevel: "silent"
  })
  // The modules that put code in the output (a module read and shaken away entirely puts none).
  const output = Object.values(result.metafile.outputs)[0]!
  return { bytes: result.outputFiles[0]!.contents, inputs: Object.entries(output.inputs).filter(([, input]) => input.bytesInOutput > 0).map(([name]) => name) }
}

describe("createCoreClient (decision 0511)", () => {
  it("has the base methods and exactly the namespaces it is given, typed from them", async () => {
    server = await startScriptServer([{ status: 200, body: "ok" }, { status: 200, body: { data: [], pagination: { hasMore: false } } }])
    const core = createCoreClient({ baseUrl: server.url, token: "t" }, { registry })
    expectTypeOf(core.registry).toEqualTypeOf<ReturnType<typeof registry>>()
    // @ts-expect-error: no iam namespace was given
    expect(core.iam).toBeUndefined()
    expect(Object.keys(core).sort()).toEqual(["call", "health", "paginate", "registry", "request"])
    expect(await core.health()).toBe("ok")
    expect((await core.registry.platforms.list({ limit: 1 })).data).toEqual([])
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /health", "GET /api/v1/platforms?limit=1"])
    expect(Object.keys(createCoreClient({ baseUrl: server.url })).sort()).toEqual(["call", "health", "paginate", "request"])
  })

  it("refuses a namespace named after a base method", () => {
    expect(() => createCoreClient({ baseUrl: "http://core.test" }, { health: stacks })).toThrow(
      new TypeError('A namespace cannot be named "health": the client has that method')
    )
  })

  it("createClient has the seven namespaces it always had, and webhooks and events", () => {
    expect(Object.keys(createClient({ baseUrl: "http://core.test" })).sort()).toEqual(
      ["billing", "call", "deploy", "events", "health", "iam", "paginate", "provisioning", "registry", "request", "stacks", "vault", "webhooks"]
    )
  })

  it("leaves the namespaces it is not given out of a bundle", async () => {
    const one = await bundle(`import { createCoreClient, stacks } from "@core/sdk"; export const c = createCoreClient({ baseUrl: "http://x" }, { stacks })`)
    const all = await bundle(`import { createClient } from "@core/sdk"; export const c = createClient({ baseUrl: "http://x" })`)
    const resources = (inputs: ReadonlyArray<string>) => inputs.filter((input) => input.includes("sdk/src/resources/")).map((input) => input.split("/").at(-1)).sort()
    expect(resources(one.inputs)).toEqual(["health.ts", "stacks.ts"])
    expect(resources(all.inputs)).toContain("registry.ts")
    expect(resources(all.inputs).length).toBeGreaterThan(10)
    const sizes = `one namespace ${one.bytes.length} bytes (${gzipSync(one.bytes).length} gzipped), all ${all.bytes.length} (${gzipSync(all.bytes).length})`
    expect(one.bytes.length, sizes).toBeLessThan(all.bytes.length * 0.8)
    expect(gzipSync(one.bytes).length, sizes).toBeLessThan(15_000)
  })
})

describe("the methods the route-coverage test asked for (decision 0510)", () => {
  it("iam: updateUser, listSessions, revokeSession, revokeSessions under the identity prefix", async () => {
    server = await startScriptServer((request) => ({ status: 200, body: request.url.endsWith("list-sessions") ? [] : { status: true } }))
    const { iam } = createClient({ baseUrl: server.url, token: "t" })
    expect(await iam.updateUser({ name: "Ada" })).toEqual({ status: true })
    expect(await iam.listSessions()).toEqual([])
    expect(await iam.revokeSession({ token: "ses_1" })).toEqual({ status: true })
    expect(await iam.revokeSessions()).toEqual({ status: true })
    expect(server.requests.map((r) => `${r.method} ${r.url} ${r.body}`)).toEqual([
      'POST /api/v1/iam/api/auth/update-user {"name":"Ada"}',
      "GET /api/v1/iam/api/auth/list-sessions ",
      'POST /api/v1/iam/api/auth/revoke-session {"token":"ses_1"}',
      "POST /api/v1/iam/api/auth/revoke-sessions "
    ])
    // Credentials' routes carry no automatic key (decision 0050's exception for iam accounts).
    expect(server.requests.filter((r) => r.headers["idempotency-key"] !== undefined)).toEqual([])
  })

  it("iam.health: the identity service's report; a degraded 503 is thrown at once, never retried", async () => {
    const report = { status: "ok", checks: { database: "ok" } }
    const degraded = { status: "degraded", checks: { database: "error" } }
    server = await startScriptServer([{ status: 200, body: report }, { status: 503, body: degraded }])
    const { iam } = createClient({ baseUrl: server.url })
    expect(await iam.health()).toEqual(report)
    const error = await iam.health().catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(InternalServerError)
    expect(error).toMatchObject({ status: 503, code: "HTTP_503", body: degraded })
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /api/v1/iam/health", "GET /api/v1/iam/health"])
  })

  it("provisioning.domains: list by platform, remove by id", async () => {
    const record = { id: "dom_1", platformId: "plt_1", hostname: "www.example.com", status: "deleted" }
    server = await startScriptServer([{ status: 200, body: { data: [record] } }, { status: 200, body: record }])
    const { provisioning } = createClient({ baseUrl: server.url, token: "t" })
    expect((await provisioning.domains.list("plt_1")).data).toEqual([record])
    expect(await provisioning.domains.remove("dom_1")).toEqual(record)
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "GET /api/v1/provisioning/api/v1/provision/domains?platformId=plt_1",
      "DELETE /api/v1/provisioning/api/v1/provision/domains/dom_1"
    ])
  })

  it("registry.platforms.lifecycleAll and billing.operator.logAll page with for await", async () => {
    server = await startScriptServer((request) => {
      const second = request.url.includes("cursor=c2")
      return { status: 200, body: { data: [second ? "b" : "a"], pagination: { hasMore: !second, nextCursor: second ? null : "c2" } } }
    })
    const core = createClient({ baseUrl: server.url, token: "t" })
    const lifecycle: Array<unknown> = []
    for await (const event of core.registry.platforms.lifecycleAll("plt_1", { limit: 1 })) lifecycle.push(event)
    const log: Array<unknown> = []
    for await (const entry of core.billing.operator.logAll({ target: "sub_1", limit: 1 })) log.push(entry)
    expect([lifecycle, log]).toEqual([["a", "b"], ["a", "b"]])
    expect(server.requests.map((r) => r.url)).toEqual([
      "/api/v1/platforms/plt_1/lifecycle?limit=1",
      "/api/v1/platforms/plt_1/lifecycle?limit=1&cursor=c2",
      "/api/v1/billing/operator/log?target=sub_1&limit=1",
      "/api/v1/billing/operator/log?target=sub_1&limit=1&cursor=c2"
    ])
  })
})
