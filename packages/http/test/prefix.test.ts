import { serve as serveHono } from "@hono/node-server"
import { Hono } from "hono"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as CoreHono from "../src/hono.js"
import * as CoreNode from "../src/node.js"
import * as Web from "../src/web.js"
import { startExpressHost } from "./runtimes.js"
import { sampleApp } from "./sampleApp.js"

/**
 * A service mounted under a prefix learns it from `X-Forwarded-Prefix`, set by the adapter that
 * strips it (a client's own value replaced), so that its links and form actions follow the mount.
 */
const web = Web.make(sampleApp)
const servers: Array<() => Promise<void>> = []
const bases: Record<string, string> = {}

const listen = (server: http.Server) =>
  new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)))

beforeAll(async () => {
  const native = await CoreNode.serve(sampleApp, { port: 0, host: "127.0.0.1", prefix: "/auth" })
  servers.push(native.close)
  bases["native Node"] = `${native.url}/auth`

  const listener = http.createServer(CoreNode.toNodeListener(web.handler, { prefix: "/auth/" }))
  bases["web handler on node:http"] = `${await listen(listener)}/auth`
  servers.push(() => new Promise((resolve) => (listener.closeAllConnections(), listener.close(() => resolve()))))

  const api = new Hono()
  CoreHono.mount(api, "/identity", web.handler)
  const app = new Hono().route("/api", api)
  const hono = await new Promise<http.Server>((resolve) => {
    const s = serveHono({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s as http.Server))
  })
  bases.Hono = `http://127.0.0.1:${(hono.address() as AddressInfo).port}/api/identity`
  servers.push(() => new Promise((resolve) => (hono.closeAllConnections(), hono.close(() => resolve()))))

  const express = await startExpressHost()
  bases.Express = `${express.url}/core`
  servers.push(express.close)
}, 60_000)

afterAll(async () => {
  for (const close of servers) await close()
  await web.dispose()
})

describe("X-Forwarded-Prefix under a mount", () => {
  it.each(["native Node", "web handler on node:http", "Hono", "Express"])("%s strips the prefix and names it", async (name) => {
    const base = bases[name]
    const prefix = new URL(base).pathname
    const answer = await fetch(`${base}/mounted?x=1`, { headers: { "x-forwarded-prefix": "/evil" } })
    expect([name, answer.status, await answer.json()]).toEqual([name, 200, { path: "/mounted", prefix }])
  })

  it("Web.mount and Web.stripPrefix set it; a path outside the prefix is left alone", async () => {
    const mounted = Web.mount("/auth", web.handler)
    expect(await (await mounted(new Request("http://local/auth/mounted"))).json()).toEqual({ path: "/mounted", prefix: "/auth" })
    const outside = Web.stripPrefix(new Request("http://local/other/mounted"), "/auth")
    expect([new URL(outside.url).pathname, outside.headers.get("x-forwarded-prefix")]).toEqual(["/other/mounted", null])
  })

  it("native Node under a prefix answers 404 outside it", async () => {
    const outside = await fetch(`${new URL(bases["native Node"]).origin}/mounted`, { headers: { "x-request-id": "p1" } })
    expect([outside.status, await outside.json()]).toEqual([
      404,
      { error: { code: "NOT_FOUND", message: "Route not found", requestId: "p1", details: null } }
    ])
  })
})
