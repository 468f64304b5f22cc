import { HttpApp, HttpServerResponse } from "@effect/platform"
import type { Upstream } from "@core/gateway"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import * as WebPages from "../src/WebPages.js"

/** An IAM upstream that answers with what it received. */
const echo: Upstream.Upstream = {
  service: "IAM",
  forward: (request) =>
    Effect.succeed(HttpServerResponse.unsafeJson({
      method: request.method,
      url: request.url,
      prefix: request.headers["x-forwarded-prefix"] ?? null,
      connection: request.headers["connection"] ?? null
    }))
}

const handle = (upstreams: ReadonlyArray<Upstream.Upstream>, path: string, init?: RequestInit) =>
  HttpApp.toWebHandler(WebPages.routes(upstreams).pipe(Effect.catchAll(() => Effect.succeed(HttpServerResponse.empty({ status: 404 })))))(
    new Request(`http://core.test${path}`, init)
  )

describe("the web pages at the server's root", () => {
  it("forwards exactly the page paths to the IAM upstream, unprefixed, with the query", async () => {
    for (const path of ["/sign-in", "/sign-up", "/sign-out", "/account", "/org-setup", "/device"]) {
      const response = await handle([echo], `${path}?next=%2Fx`, { headers: { "x-forwarded-prefix": "/evil", connection: "x-foo" } })
      expect(await response.json()).toEqual({ method: "GET", url: `${path}?next=%2Fx`, prefix: null, connection: null })
    }
    const posted = await handle([echo], "/device", { method: "POST", body: "a=1", headers: { "content-type": "application/x-www-form-urlencoded" } })
    expect(await posted.json()).toMatchObject({ method: "POST", url: "/device" })
  })

  it("serves nothing else of identity at the root, and nothing without an IAM upstream", async () => {
    expect((await handle([echo], "/api/auth/sign-in/email", { method: "POST" })).status).toBe(404)
    expect((await handle([echo], "/oauth/device/code", { method: "POST" })).status).toBe(404)
    expect((await handle([], "/sign-in")).status).toBe(404)
  })
})

