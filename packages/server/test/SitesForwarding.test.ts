import { HttpUpstream } from "@core/gateway"
import { Effect, Exit, Scope } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as SitesForwarding from "../src/SitesForwarding.js"

/** Listen on a free port of 127.0.0.1; its origin and a close. */
const serve = (listener: Http.RequestListener) =>
  new Promise<{ origin: string; close: () => Promise<void> }>((resolve) => {
    const server = Http.createServer(listener)
    server.listen(0, "127.0.0.1", () =>
      resolve({
        origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise((done) => server.close(() => done()))
      }))
  })

/** A GET to `origin` with `Host: <host>` and extra headers: status, body, and the echoed request (when JSON). */
const get = (origin: string, host: string, path: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const { port } = new URL(origin)
    const request = Http.request({ host: "127.0.0.1", port, path, headers: { host, ...headers } }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }))
    })
    request.on("error", reject)
    request.end()
  })

describe("SitesForwarding: the gateway's sites sent to a provisioning service in another process (decision 0554)", () => {
  const scope = Effect.runSync(Scope.make())
  let provisioning: Awaited<ReturnType<typeof serve>>
  let gateway: Awaited<ReturnType<typeof serve>>
  let unreachable: Awaited<ReturnType<typeof serve>>

  beforeAll(async () => {
    // The provisioning service: echoes what it received.
    provisioning = await serve((request, response) => {
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({ url: request.url, method: request.method, headers: request.headers }))
    })
    const upstream = await Effect.runPromise(Scope.extend(HttpUpstream.make("PROVISIONING", provisioning.origin), scope))
    const next: SitesForwarding.Listener = (_request, response) => void response.writeHead(200, { "content-type": "text/plain" }).end("the gateway")
    gateway = await serve(SitesForwarding.listener(next, upstream))
    // An upstream whose port nothing listens on any more.
    const gone = await serve(() => {})
    await gone.close()
    const dead = await Effect.runPromise(Scope.extend(HttpUpstream.make("PROVISIONING", gone.origin), scope))
    unreachable = await serve(SitesForwarding.listener(next, dead))
  })

  afterAll(async () => {
    await Promise.all([gateway?.close(), unreachable?.close(), provisioning?.close()])
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  it("forwards a site's request with its path and query, the site's host in X-Forwarded-Host, and no client X-Core-* header", async () => {
    const answer = await get(gateway.origin, "acme.localhost:8787", "/assets/app.js?v=1", { "x-core-user-id": "usr_forged", "x-request-id": "site-1" })
    expect(answer.status).toBe(200)
    const seen = JSON.parse(answer.text) as { url: string; method: string; headers: Record<string, string> }
    expect(seen.url).toBe("/assets/app.js?v=1")
    expect(seen.method).toBe("GET")
    expect(seen.headers["x-forwarded-host"]).toBe("acme.localhost:8787")
    expect(seen.headers["x-request-id"]).toBe("site-1")
    expect(seen.headers["x-core-user-id"]).toBeUndefined()
    expect(seen.headers.host).toBe(new URL(provisioning.origin).host)
  })

  it("forwards previews (<branch>.<project>.localhost) too, and leaves every other host to the gateway", async () => {
    const preview = JSON.parse((await get(gateway.origin, "feature-x.acme.localhost", "/")).text) as { headers: Record<string, string> }
    expect(preview.headers["x-forwarded-host"]).toBe("feature-x.acme.localhost")
    expect(await get(gateway.origin, "127.0.0.1:8787", "/api/v1/iam/")).toEqual({ status: 200, text: "the gateway" })
    expect(await get(gateway.origin, "localhost:8787", "/")).toEqual({ status: 200, text: "the gateway" })
  })

  it("answers a plain-text 502 when the provisioning service cannot be reached", async () => {
    expect(await get(unreachable.origin, "acme.localhost", "/")).toEqual({ status: 502, text: "Bad Gateway\n" })
  })

  it("tells site hosts from others", () => {
    expect(["acme.localhost", "ACME.localhost:8787", "main.acme.localhost:1"].map(SitesForwarding.isSiteHost)).toEqual([true, true, true])
    expect(["localhost:8787", "127.0.0.1", "acme.example.com", undefined].map(SitesForwarding.isSiteHost)).toEqual([false, false, false, false])
  })
})
