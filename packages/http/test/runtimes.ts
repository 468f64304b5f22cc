import { serve as serveHono } from "@hono/node-server"
import { spawn } from "node:child_process"
import { Hono } from "hono"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import * as CoreHono from "../src/hono.js"
import * as CoreNode from "../src/node.js"
import * as Web from "../src/web.js"
import { sampleApp } from "./sampleApp.js"

/** A sample service listening on 127.0.0.1; `base` is the address of its mount point. */
export interface Running {
  readonly base: string
  /** The host app's own route beside the mounted service, when there is one. */
  readonly hostRoute?: string
  readonly close: () => Promise<void>
}

const listen = (server: http.Server): Promise<number> =>
  new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)))

const shut = (server: http.Server, dispose?: () => Promise<void>) => async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await dispose?.()
}

/**
 * The Express host runs in its own process: vitest starts its workers with `--conditions import`,
 * under which express 5's router `require`s the ESM build of `is-promise` and fails.
 */
export const startExpressHost = async (): Promise<{ readonly url: string; readonly close: () => Promise<void> }> => {
  const fixture = fileURLToPath(new URL("./fixtures/express-host.ts", import.meta.url))
  const root = fileURLToPath(new URL("../../..", import.meta.url))
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", fixture], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"]
  })
  const port = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`express host exited with ${code}`)))
    child.stdout.once("data", (data: Buffer) => (child.stdout.resume(), resolve(data.toString().trim())))
  })
  const close = () =>
    new Promise<void>((resolve) => {
      child.once("exit", () => resolve())
      child.kill("SIGTERM")
    })
  return { url: `http://127.0.0.1:${port}`, close }
}

/** The four ways to run a service: native Node, the web handler on node:http, inside Hono, inside Express. */
export const runtimes: Record<string, () => Promise<Running>> = {
  "native Node": async () => {
    const served = await CoreNode.serve(sampleApp, { port: 0, host: "127.0.0.1" })
    return { base: served.url, close: served.close }
  },
  "web handler on node:http": async () => {
    const web = Web.make(sampleApp)
    const server = http.createServer(CoreNode.toNodeListener(web.handler))
    const port = await listen(server)
    return { base: `http://127.0.0.1:${port}`, close: shut(server, web.dispose) }
  },
  "Hono (@hono/node-server)": async () => {
    const web = Web.make(sampleApp)
    const api = new Hono()
    api.get("/host", (c) => c.text("host route"))
    CoreHono.mount(api, "/core", web.handler)
    const app = new Hono().route("/api", api)
    const server = await new Promise<http.Server>((resolve) => {
      const s = serveHono({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s as http.Server))
    })
    const port = (server.address() as AddressInfo).port
    return { base: `http://127.0.0.1:${port}/api/core`, hostRoute: `http://127.0.0.1:${port}/api/host`, close: shut(server, web.dispose) }
  },
  "Express": async () => {
    const host = await startExpressHost()
    return { base: `${host.url}/core`, hostRoute: `${host.url}/host`, close: host.close }
  }
}
