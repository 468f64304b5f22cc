import { HttpApp } from "@effect/platform"
import { type Effect, Layer, ManagedRuntime, type Scope } from "effect"
import * as Http from "node:http"
import type * as Net from "node:net"
import { afterAll } from "vitest"
import * as Assemble from "../src/Assemble.js"
import * as Gateway from "../src/Gateway.js"

/**
 * The transport the gateway tests drive, for one vitest project each (vitest.config.ts):
 * `CORE_GATEWAY_TRANSPORT=node` serves `Gateway.listener` on a real `node:http` server on
 * 127.0.0.1 and sends each request with `node:http`; otherwise `Gateway.make` answers through
 * `HttpApp.toWebHandlerLayer`. The same tests hold on both. Requests keep their URL's host as
 * `Host` and every header as given (hop-by-hop ones included).
 */
export const TRANSPORT: "node" | "platform" = process.env.CORE_GATEWAY_TRANSPORT === "node" ? "node" : "platform"

/** One gateway in both forms. */
export interface Built {
  readonly app: () => HttpApp.Default<never, Scope.Scope>
  readonly listener: () => Effect.Effect<Gateway.NodeListener>
}

/** A gateway from `Gateway` options. */
export const ofOptions = (options: Gateway.GatewayOptions): Built => ({
  app: () => Gateway.make(options),
  listener: () => Gateway.listener(options)
})

/** A gateway as `Assemble` builds it from configuration. */
export const ofAssembled = (options: Assemble.AssembleOptions): Built => ({
  app: () => Assemble.gateway(options),
  listener: () => Assemble.listener(options)
})

/** A served gateway: a web handler over the transport under test. */
export interface Served {
  readonly handler: (request: Request) => Promise<Response>
  readonly dispose: () => Promise<void>
}

const open: Array<Served> = []
afterAll(async () => {
  await Promise.all(open.splice(0).map((served) => served.dispose()))
})

const overNode = (built: Built, layer: Layer.Layer<never>): Served => {
  const runtime = ManagedRuntime.make(layer)
  const server = runtime.runPromise(built.listener()).then(async (listener) => {
    const server = Http.createServer(listener)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    return server
  })
  return {
    handler: async (request) => {
      const { port } = (await server).address() as Net.AddressInfo
      const url = new URL(request.url)
      const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer())
      const headers: Record<string, string> = { host: url.host }
      request.headers.forEach((value, name) => {
        headers[name] = value
      })
      if (body !== undefined) headers["content-length"] = String(body.length)
      return new Promise<Response>((resolve, reject) => {
        const outgoing = Http.request({ host: "127.0.0.1", port, method: request.method, path: `${url.pathname}${url.search}`, headers })
        outgoing.once("error", reject)
        outgoing.once("response", (incoming) => {
          const chunks: Array<Buffer> = []
          incoming.on("data", (chunk: Buffer) => chunks.push(chunk))
          incoming.once("error", reject)
          incoming.once("end", () => {
            const status = incoming.statusCode ?? 500
            const answer = new Headers()
            for (const [name, value] of Object.entries(incoming.headers)) {
              for (const item of Array.isArray(value) ? value : [value ?? ""]) answer.append(name, item)
            }
            const bodiless = request.method === "HEAD" || status === 204 || status === 205 || status === 304
            resolve(new Response(bodiless ? null : Buffer.concat(chunks), { status, headers: answer }))
          })
        })
        outgoing.end(body)
      })
    },
    dispose: async () => {
      const served = await server
      served.closeAllConnections()
      await new Promise((resolve) => served.close(resolve))
      await runtime.dispose()
    }
  }
}

/**
 * Serve a gateway over the transport under test (`layer` gives its logger, clock, …); closed after
 * the file's tests, or earlier with `dispose`.
 */
export const serve = (built: Built, layer: Layer.Layer<never> = Layer.empty): Served => {
  const served = TRANSPORT === "node"
    ? overNode(built, layer)
    : HttpApp.toWebHandlerLayer(built.app(), layer)
  open.push(served)
  return served
}

/** `serve`'s handler alone. */
export const handlerOf = (built: Built, layer?: Layer.Layer<never>) => serve(built, layer).handler
