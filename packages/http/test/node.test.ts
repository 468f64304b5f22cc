import { HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as CoreNode from "../src/node.js"
import { sampleApp } from "./sampleApp.js"

class Greeting extends Context.Tag("test/Greeting")<Greeting, { readonly word: string }>() {}

const greeter = HttpRouter.empty.pipe(
  HttpRouter.get("/", Effect.map(Greeting, (greeting) => HttpServerResponse.text(greeting.word)))
)

describe("Node.serve", () => {
  it("finishes the requests in flight on close, then refuses new connections", async () => {
    const server = await CoreNode.serve(sampleApp, { port: 0, host: "127.0.0.1" })
    const inFlight = fetch(`${server.url}/slow`).then(async (res) => [res.status, await res.text()])
    await new Promise((resolve) => setTimeout(resolve, 100))
    const started = Date.now()
    await server.close()
    expect(await inFlight).toEqual([200, "finally"])
    expect(Date.now() - started).toBeLessThan(2_000)
    await expect(fetch(`${server.url}/hello`)).rejects.toThrow()
  })

  it("provides the app's services from a layer and releases them on close", async () => {
    const released: Array<string> = []
    const services = Layer.scoped(
      Greeting,
      Effect.acquireRelease(Effect.succeed({ word: "bonjour" }), () => Effect.sync(() => released.push("greeting")))
    )
    const server = await CoreNode.serve(greeter, { port: 0, host: "127.0.0.1", layer: services })
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`)
    const res = await fetch(`${server.url}/`)
    expect([res.status, await res.text()]).toEqual([200, "bonjour"])
    await server.close()
    expect(released).toEqual(["greeting"])
  })

  it("rejects when the port is taken", async () => {
    const first = await CoreNode.serve(sampleApp, { port: 0, host: "127.0.0.1" })
    await expect(CoreNode.serve(sampleApp, { port: first.port, host: "127.0.0.1" })).rejects.toThrow()
    await first.close()
  })
})

describe("Node.layer", () => {
  it.scoped("serves an app as a Layer and exposes the server's address", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(CoreNode.layer(greeter).pipe(Layer.provide(Layer.succeed(Greeting, { word: "hallo" }))))
      const address = Context.get(context, HttpServer.HttpServer).address
      const port = address._tag === "TcpAddress" ? address.port : 0
      const res = yield* Effect.promise(() => fetch(`http://127.0.0.1:${port}/`))
      expect([res.status, yield* Effect.promise(() => res.text())]).toEqual([200, "hallo"])
    }))
})
