import { defineRoutes } from "@core/contracts"
import { Route, Telemetry } from "@core/kernel"
import { Context, Effect, Exit, Layer, ManagedRuntime, Option, Tracer } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import * as RouteNode from "../src/RouteNode.js"
import { FakeCallers, handlers } from "./fixtures/routes.js"

/** Every span a tracer was asked for: what the runner builds, or that it builds none. */
const recording = () => {
  const spans: Array<Tracer.Span> = []
  let next = 0
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind) => {
      const attributes = new Map<string, unknown>()
      const span: Tracer.Span = {
        _tag: "Span",
        name,
        spanId: (++next).toString(16).padStart(16, "0"),
        traceId: Option.match(parent, { onNone: () => "1".repeat(32), onSome: (p) => p.traceId }),
        parent,
        context,
        status: { _tag: "Started", startTime },
        attributes,
        links,
        sampled: true,
        kind,
        attribute: (key, value) => void attributes.set(key, value),
        event: () => {},
        addLinks: () => {},
        end(endTime, exit) {
          ;(span as { status: Tracer.SpanStatus }).status = { _tag: "Ended", startTime, endTime, exit }
        }
      }
      spans.push(span)
      return span
    },
    context: (f) => f()
  })
  return { tracer, spans }
}

const Failing = defineRoutes({
  broken: { method: "GET", path: "/broken/{name}", summary: "Always fails", auth: "public", request: { params: z.object({ name: z.string().max(10) }) }, responses: { 200: null } }
})
const all = [...handlers, Route.handle(Failing.broken, () => Effect.die(new Error("boom")))] as const

const serve = async (layer: Layer.Layer<never>, request: (url: string) => Promise<Response>) => {
  const runtime = ManagedRuntime.make(Layer.merge(FakeCallers, layer))
  const listener = await runtime.runPromise(RouteNode.listener(all))
  const server = http.createServer(listener)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  try {
    return await request(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    await runtime.dispose()
  }
}

const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

const withTelemetry = (tracer: Tracer.Tracer) =>
  Layer.merge(
    Layer.setTracer(tracer),
    Layer.succeed(Telemetry.Telemetry, {
      tracer,
      externalSpan: (spanContext) => Tracer.externalSpan({ traceId: spanContext.traceId, spanId: spanContext.spanId, sampled: true })
    })
  )

describe("the route runner's spans", () => {
  it("builds no span at all without Telemetry (spans not exported)", async () => {
    const { spans, tracer } = recording()
    const response = await serve(Layer.setTracer(tracer), (url) => fetch(`${url}/ping`, { headers: { traceparent: TRACEPARENT } }))
    expect(response.status).toBe(200)
    expect(spans).toEqual([])
  })

  it("runs each request in an http.server span named from the route template, the child of its traceparent", async () => {
    const { spans, tracer } = recording()
    const response = await serve(withTelemetry(tracer), (url) =>
      fetch(`${url}/orgs/org_1/things`, {
        method: "POST",
        headers: { traceparent: TRACEPARENT, "x-api-key": "core_good", "x-request-id": "req-1", "content-type": "application/json" },
        body: JSON.stringify({ name: "A" })
      }))
    expect(response.status).toBe(201)
    const span = spans.find((found) => found.kind === "server")!
    expect(span.name).toBe("POST /orgs/{orgId}/things")
    expect(Option.map(span.parent, (parent) => [parent.traceId, parent.spanId])).toEqual(Option.some(["4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"]))
    expect(Object.fromEntries(span.attributes)).toMatchObject({
      "http.route": "/orgs/{orgId}/things",
      "http.request.method": "POST",
      "http.response.status_code": 201,
      "core.request_id": "req-1",
      "core.organization_id": "org_1",
      "core.platform_id": "plt_1"
    })
    expect(span.status._tag === "Ended" && Exit.isSuccess(span.status.exit)).toBe(true)
  })

  it("marks a 5xx span as an error with the envelope's code, and names it without the raw parameter", async () => {
    const { spans, tracer } = recording()
    const response = await serve(withTelemetry(tracer), (url) => fetch(`${url}/broken/secret-id`))
    expect(response.status).toBe(500)
    const span = spans.find((found) => found.kind === "server")!
    expect(span.name).toBe("GET /broken/{name}")
    expect(span.parent).toEqual(Option.none())
    expect(Object.fromEntries(span.attributes)).toMatchObject({ "http.response.status_code": 500, "core.error.code": "INTERNAL_ERROR", "error.type": "INTERNAL_ERROR" })
    expect(span.status._tag === "Ended" && Exit.isFailure(span.status.exit)).toBe(true)
    expect(Context.isContext(span.context)).toBe(true)
  })
})
