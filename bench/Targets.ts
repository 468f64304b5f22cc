import { type HttpApp, HttpMiddleware, HttpServer, type HttpServerRequest } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { serve } from "@hono/node-server"
import { Context, Effect, Layer, type Scope } from "effect"
import { Hono } from "hono"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

/** Listen on a free port of 127.0.0.1 and resolve it. */
export const listening = (server: http.Server): Promise<number> =>
  new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)))

/**
 * An app served by `@effect/platform-node` directly, its requirements from `layer`; with its
 * per-request server span, as it comes, unless `traced` is false.
 */
export const platformNode = <E, R>(
  app: HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest | Scope.Scope>,
  layer: Layer.Layer<R>,
  traced = true
): Promise<number> =>
  new Promise((resolve) => {
    const served = HttpServer.serve(app).pipe(
      Layer.provide(layer),
      Layer.provideMerge(NodeHttpServer.layer(() => http.createServer(), { port: 0, host: "127.0.0.1" }))
    )
    const launched = Layer.launch(Layer.tap(served, (context) =>
      Effect.sync(() => {
        const address = Context.get(context, HttpServer.HttpServer).address
        resolve(address._tag === "TcpAddress" ? address.port : 0)
      })))
    Effect.runFork(traced ? launched : Effect.locally(launched, HttpMiddleware.currentTracerDisabledWhen, () => true))
  })

/** The references every HTTP bench compares with: `GET <path>` answering `json`, by Hono and by bare `node:http`. */
export const references = (path: string, json: unknown): Record<"hono" | "node-http", () => Promise<number>> => {
  const body = JSON.stringify(json)
  return {
    "hono": () =>
      new Promise((resolve) => {
        const hono = new Hono().get(path, (c) => c.json(json as object))
        serve({ fetch: hono.fetch, port: 0, hostname: "127.0.0.1" }, (info) => resolve(info.port))
      }),
    "node-http": () =>
      listening(http.createServer((_req, res) => {
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
        res.end(body)
      }))
  }
}

/** Run as a child (`Load.startTarget`): start the target named by the first argument and print its port. */
export const startNamed = async (targets: Record<string, () => Promise<number>>): Promise<void> => {
  const name = process.argv[2]
  if (name === undefined) return
  const start = targets[name]
  if (start === undefined) throw new Error(`unknown target ${name}; one of ${Object.keys(targets).join(", ")}`)
  process.stdout.write(`${await start()}\n`)
}
