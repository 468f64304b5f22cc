import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "vitest"
import { Context, Effect, Layer, ManagedRuntime } from "effect"
import * as Web from "../src/web.js"
import { sampleApp } from "./sampleApp.js"

class Greeting extends Context.Tag("test/Greeting")<Greeting, { readonly word: string }>() {}

const greeter = HttpRouter.empty.pipe(
  HttpRouter.get("/", Effect.map(Greeting, (greeting) => HttpServerResponse.text(greeting.word)))
)

const json = async (response: Response) => [response.status, await response.json()]

describe("Web.make", () => {
  const { handler, dispose } = Web.make(sampleApp)

  it("answers a web Request directly", async () => {
    expect(await json(await handler(new Request("http://local/hello?a=1")))).toEqual([
      200,
      { hello: "world", path: "/hello", query: { a: "1" } }
    ])
  })

  it("counts a web body, which comes without a limit of its own", async () => {
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new Uint8Array(256 * 1024).fill(0x20))
    })
    const init = { method: "POST", body, duplex: "half", headers: { "content-type": "application/json", "x-request-id": "w1" } }
    const response = await handler(new Request("http://local/echo", init as RequestInit))
    expect(await json(response)).toEqual([413, {
      error: {
        code: "PAYLOAD_TOO_LARGE",
        message: "The request body exceeds the limit of 1048576 bytes",
        requestId: "w1",
        details: { limit: 1048576 }
      }
    }])
  })

  it("serves a mounted handler under its prefix, body and query passed through", async () => {
    const mounted = Web.mount("/svc/", handler)
    expect(await json(await mounted(new Request("http://local/svc/hello?b=2")))).toMatchObject([200, { path: "/hello", query: { b: "2" } }])
    const init = { method: "POST", body: JSON.stringify({ message: "via prefix" }), headers: { "content-type": "application/json" } }
    expect(await json(await mounted(new Request("http://local/svc/echo", init)))).toEqual([200, { echo: { message: "via prefix" } }])
  })

  it("leaves a request outside the prefix as it is", () => {
    const request = new Request("http://local/svcx/hello")
    expect(Web.stripPrefix(request, "/svc")).toBe(request)
    expect(new URL(Web.stripPrefix(new Request("http://local/svc"), "svc").url).pathname).toBe("/")
  })

  it("disposes", () => dispose())
})

describe("Web services", () => {
  it("builds the layer once and releases it on dispose", async () => {
    let built = 0
    const released: Array<string> = []
    const services = Layer.scoped(
      Greeting,
      Effect.acquireRelease(Effect.sync(() => (built++, { word: "hej" })), () => Effect.sync(() => released.push("greeting")))
    )
    const { handler, dispose } = Web.make(greeter, services)
    const answers = await Promise.all([1, 2, 3].map(() => handler(new Request("http://local/")).then((r) => r.text())))
    expect(answers).toEqual(["hej", "hej", "hej"])
    expect(built).toBe(1)
    await dispose()
    expect(released).toEqual(["greeting"])
  })

  it("runs on a runtime its owner manages", async () => {
    const runtime = ManagedRuntime.make(Layer.succeed(Greeting, { word: "ciao" }))
    const handler = Web.fromRuntime(await runtime.runtime())(greeter)
    const response = await handler(new Request("http://local/"))
    expect([response.status, await response.text()]).toEqual([200, "ciao"])
    await runtime.dispose()
  })
})
