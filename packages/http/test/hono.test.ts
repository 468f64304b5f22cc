import { Hono } from "hono"
import { describe, expect, it } from "vitest"
import * as CoreHono from "../src/hono.js"
import * as Web from "../src/web.js"
import { sampleApp } from "./sampleApp.js"

const { handler } = Web.make(sampleApp)

describe("Hono.mount", () => {
  it("mounts at the root", async () => {
    const app = CoreHono.mount(new Hono(), "/", handler)
    const response = await app.request("/hello?x=1")
    expect([response.status, await response.json()]).toEqual([200, { hello: "world", path: "/hello", query: { x: "1" } }])
  })

  it("maps the bare prefix to the service's root", async () => {
    const app = CoreHono.mount(new Hono(), "core", handler)
    const response = await app.request("/core", { headers: { "x-request-id": "h1" } })
    expect([response.status, await response.json()]).toEqual([
      404,
      { error: { code: "NOT_FOUND", message: "Route not found", requestId: "h1", details: null } }
    ])
  })

  it("strips the whole path of a sub-app mounted with route()", async () => {
    const inner = CoreHono.mount(new Hono(), "/svc", handler)
    const app = new Hono().route("/v1", new Hono().route("/api", inner))
    const response = await app.request("/v1/api/svc/hello")
    expect(await response.json()).toMatchObject({ path: "/hello" })
  })
})
