import { HttpApp } from "@effect/platform"
import { type Effect, Layer, Logger, ManagedRuntime } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Readable } from "node:stream"

/** A request as tests send it: `RequestInit` plus a bearer `token`, an `apiKey` and a `json` body. */
export interface TestRequestInit extends RequestInit {
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token?: string
  /** Sent as `x-api-key`. */
  readonly apiKey?: string
  /** Serialized as the body, with `Content-Type: application/json`. */
  readonly json?: unknown
}

/** A server the harness started on 127.0.0.1. */
export interface Listening {
  readonly url: string
  readonly port: number
  readonly close: () => Promise<void>
}

/** An app and its services over one test database: real `Request`s in, real `Response`s out. */
export interface HttpHarness<ROut> {
  /** Send a request to the app (`path` with its query) through the web-standard handler. */
  readonly fetch: (path: string, init?: TestRequestInit) => Promise<Response>
  /** Run an effect (seed rows, read state) against the same services and database. */
  readonly run: <A, E>(effect: Effect.Effect<A, E, ROut>) => Promise<A>
  /** Serve the same app on a real server at 127.0.0.1 (closed by `dispose`). */
  readonly listen: () => Promise<Listening>
  /** Every line logged while the harness ran, as JSON (to prove secrets never reach the logs). */
  readonly logs: ReadonlyArray<string>
  /** Close servers, then release the services and the database. */
  readonly dispose: () => Promise<void>
}

const requestOf = (base: string, path: string, init: TestRequestInit): Request => {
  const { token, apiKey, json, ...rest } = init
  const headers = new Headers(rest.headers)
  if (token !== undefined) headers.set("authorization", `Bearer ${token}`)
  if (apiKey !== undefined) headers.set("x-api-key", apiKey)
  if (json !== undefined) headers.set("content-type", "application/json")
  return new Request(new URL(path, base), { ...rest, headers, ...(json === undefined ? {} : { body: JSON.stringify(json) }) })
}

/** A `node:http` server in front of a web handler (the harness's `listen`; tests only). */
const serveWeb = (handler: (request: Request) => Promise<Response>): Promise<Listening> =>
  new Promise((resolve) => {
    const server = http.createServer(async (incoming, outgoing) => {
      const headers = new Headers()
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (typeof value === "string") headers.set(name, value)
        else if (Array.isArray(value)) for (const item of value) headers.append(name, item)
      }
      const hasBody = incoming.method !== "GET" && incoming.method !== "HEAD"
      const response = await handler(new Request(`http://${incoming.headers.host ?? "127.0.0.1"}${incoming.url}`, {
        method: incoming.method!,
        headers,
        ...(hasBody ? { body: Readable.toWeb(incoming) as ReadableStream, duplex: "half" } : {})
      } as RequestInit))
      outgoing.statusCode = response.status
      response.headers.forEach((value, name) => {
        if (name !== "set-cookie") outgoing.setHeader(name, value)
      })
      const cookies = response.headers.getSetCookie()
      if (cookies.length > 0) outgoing.setHeader("set-cookie", cookies)
      outgoing.end(Buffer.from(await response.arrayBuffer()))
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        port,
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })

/**
 * The one HTTP test harness of every package: an app served by the web-standard handler over its
 * layer (which brings the test database: `TestDatabase.layer(migrations)`, PGlite by default and
 * PostgreSQL when `CORE_TEST_DATABASE_URL` is set, one database per harness).
 *
 * @example
 * const harness = await makeHttpHarness(IdentityApp, TestLayer)
 * const response = await harness.fetch("/api/core/apikeys?organizationId=org_1", { apiKey })
 * await harness.dispose()
 */
export const makeHttpHarness = async <E, R, ROut, LE>(
  app: HttpApp.Default<E, R>,
  layer: Layer.Layer<ROut, LE, never>,
  options: { readonly baseUrl?: string } = {}
): Promise<HttpHarness<ROut>> => {
  const logs: Array<string> = []
  const capture = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ annotations, message }) => logs.push(JSON.stringify({ message, annotations: [...annotations] })))
  )
  const runtime = ManagedRuntime.make(Layer.merge(Layer.orDie(layer), capture))
  const handler = HttpApp.toWebHandlerRuntime(await runtime.runtime())(app as HttpApp.Default<E, ROut>)
  const base = options.baseUrl ?? "http://core.test"
  const servers: Array<Listening> = []
  return {
    logs,
    fetch: (path, init = {}) => handler(requestOf(base, path, init)),
    run: (effect) => runtime.runPromise(effect),
    listen: async () => {
      const listening = await serveWeb(handler)
      servers.push(listening)
      return listening
    },
    dispose: async () => {
      for (const server of servers.splice(0)) await server.close()
      await runtime.dispose()
    }
  }
}
