import { HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import * as CoreNode from "@core/http/node"
import * as Web from "@core/http/web"
import { serve } from "@hono/node-server"
import { Context, Effect, Layer } from "effect"
import { Hono } from "hono"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

/** The trivial route every target serves: `GET /` → a small JSON body. */
const app = HttpRouter.empty.pipe(HttpRouter.get("/", Effect.succeed(HttpServerResponse.unsafeJson({ hello: "world" }))))
const body = JSON.stringify({ hello: "world" })

const listening = (server: http.Server) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)))

/** Start one target on 127.0.0.1 and resolve its port. */
export const targets: Record<string, () => Promise<number>> = {
  "core-node": async () => (await CoreNode.serve(app, { host: "127.0.0.1" })).port,
  "platform-node": () =>
    new Promise((resolve) => {
      const served = HttpServer.serve(app).pipe(
        Layer.provideMerge(NodeHttpServer.layer(() => http.createServer(), { port: 0, host: "127.0.0.1" }))
      )
      Effect.runFork(Layer.launch(Layer.tap(served, (context) =>
        Effect.sync(() => {
          const address = Context.get(context, HttpServer.HttpServer).address
          resolve(address._tag === "TcpAddress" ? address.port : 0)
        }))))
    }),
  "web-on-node": () => listening(http.createServer(CoreNode.toNodeListener(Web.make(app).handler))),
  "hono": () =>
    new Promise((resolve) => {
      const hono = new Hono().get("/", (c) => c.json({ hello: "world" }))
      serve({ fetch: hono.fetch, port: 0, hostname: "127.0.0.1" }, (info) => resolve(info.port))
    }),
  "node-http": () =>
    listening(http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
      res.end(body)
    }))
}

const name = process.argv[2]
if (name !== undefined) {
  const start = targets[name]
  if (start === undefined) throw new Error(`unknown target ${name}; one of ${Object.keys(targets).join(", ")}`)
  process.stdout.write(`${await start()}\n`)
}
