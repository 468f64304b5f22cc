import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Deferred, Effect, Exit, Scope } from "effect"
import * as net from "node:net"
import { describe, expect, it } from "vitest"
import * as Listener from "../src/Listener.js"
import { eventually } from "@core/kernel/testing/poll"

const open = async <A>(effect: Effect.Effect<A, Listener.ListenError, Scope.Scope>) => {
  const scope = Effect.runSync(Scope.make())
  const value = await Effect.runPromise(Scope.extend(effect, scope))
  return { value, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

describe("Listener", () => {
  it("serves until closed, lets requests in flight finish, then refuses connections", async () => {
    const started = Effect.runSync(Deferred.make<void>())
    const release = Effect.runSync(Deferred.make<void>())
    const app = HttpRouter.empty.pipe(
      HttpRouter.get("/fast", Effect.succeed(HttpServerResponse.text("fast"))),
      HttpRouter.get(
        "/slow",
        Deferred.succeed(started, undefined).pipe(
          Effect.zipRight(Deferred.await(release)),
          Effect.as(HttpServerResponse.text("slow done"))
        )
      )
    )
    const server = await open(Listener.listen(app, { port: 0, host: "127.0.0.1" }))
    const base = `http://127.0.0.1:${server.value}`
    expect(await (await fetch(`${base}/fast`)).text()).toBe("fast")

    const slow = fetch(`${base}/slow`).then(async (response) => [response.status, await response.text()])
    await Effect.runPromise(Deferred.await(started))
    let closed = false
    const closing = server.close().then(() => {
      closed = true
    })
    // A new connection is refused once the close has begun; the close itself still waits on /slow.
    await eventually(() => fetch(`${base}/fast`).then(() => "answered", () => "refused"), (outcome) => outcome === "refused", {
      message: "the closing listener to refuse new connections"
    })
    expect(closed).toBe(false)

    const releasedAt = Date.now()
    await Effect.runPromise(Deferred.succeed(release, undefined))
    expect(await slow).toEqual([200, "slow done"])
    await closing
    expect(Date.now() - releasedAt).toBeLessThan(1_000)
  })

  it("cuts requests still running after the grace period", async () => {
    const arrived = Effect.runSync(Deferred.make<void>())
    const app = HttpRouter.empty.pipe(HttpRouter.get("/hang", Deferred.succeed(arrived, undefined).pipe(Effect.zipRight(Effect.never))))
    const server = await open(Listener.listen(app, { port: 0, host: "127.0.0.1", grace: "200 millis" }))
    const hanging = fetch(`http://127.0.0.1:${server.value}/hang`).then(() => "answered", () => "cut")
    await Effect.runPromise(Deferred.await(arrived))
    const started = Date.now()
    await server.close()
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(await hanging).toBe("cut")
  })

  it("names PORT when the port is taken", async () => {
    const app = HttpRouter.empty
    const first = await open(Listener.listen(app, { port: 0, host: "127.0.0.1" }))
    const second = await Effect.runPromiseExit(Effect.scoped(Listener.listen(app, { port: first.value, host: "127.0.0.1" })))
    expect(second).toEqual(Exit.fail(new Listener.ListenError({ message: `PORT ${first.value} is already in use` })))
    await first.close()
  })

  it("answers 408 with an envelope when a request body stays silent past bodyTimeout, and closes the connection", async () => {
    const app = HttpRouter.empty.pipe(
      HttpRouter.post("/echo", Effect.map(HttpServerRequest.HttpServerRequest.pipe(Effect.flatMap((request) => request.text)), (text) => HttpServerResponse.text(text)))
    )
    const server = await open(Listener.listen(app, { port: 0, host: "127.0.0.1", bodyTimeout: "300 millis" }))
    const raw = await exchange(server.value, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\nabc")
    expect(raw.head).toMatch(/^HTTP\/1\.1 408 /)
    expect(raw.head.toLowerCase()).toContain("connection: close")
    expect(JSON.parse(raw.body)).toMatchObject({ error: { code: "REQUEST_TIMEOUT", details: null } })
    expect(raw.closed).toBe(true)
    await server.close()
  })

  it("keeps a body that trickles in, and a handler that works longer than bodyTimeout once the body is in", async () => {
    const app = HttpRouter.empty.pipe(
      HttpRouter.post(
        "/slow",
        HttpServerRequest.HttpServerRequest.pipe(
          Effect.flatMap((request) => request.text),
          Effect.delay("600 millis"),
          Effect.map((text) => HttpServerResponse.text(`got ${text}`))
        )
      )
    )
    const server = await open(Listener.listen(app, { port: 0, host: "127.0.0.1", bodyTimeout: "300 millis" }))
    const socket = net.connect(server.value, "127.0.0.1")
    let received = ""
    socket.setEncoding("utf8").on("data", (chunk: string) => (received += chunk))
    socket.write("POST /slow HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 4\r\nConnection: close\r\n\r\n")
    for (const byte of "abcd") {
      await new Promise((resolve) => setTimeout(resolve, 150))
      socket.write(byte)
    }
    await new Promise((resolve) => socket.on("close", resolve))
    expect(received).toMatch(/^HTTP\/1\.1 200 /)
    expect(received.endsWith("got abcd")).toBe(true)
    await server.close()
  })

  it("answers a URL over the header limit with a 431 envelope, not Node's empty answer", async () => {
    const server = await open(Listener.listen(HttpRouter.empty, { port: 0, host: "127.0.0.1" }))
    const response = await fetch(`http://127.0.0.1:${server.value}/api/v1/iam/x?q=${"a".repeat(20_000)}`)
    expect(response.status).toBe(431)
    expect(response.headers.get("content-type")).toBe("application/json")
    expect(await response.json()).toMatchObject({
      error: { code: "HEADERS_TOO_LARGE", message: "The request line and headers are larger than the server accepts", details: null }
    })
    const garbage = await exchange(server.value, "NOT HTTP\r\n\r\n")
    expect(garbage.head).toMatch(/^HTTP\/1\.1 400 /)
    expect(JSON.parse(garbage.body)).toMatchObject({ error: { code: "BAD_REQUEST" } })
    await server.close()
  })

  it("closes connections over maxConnections as they arrive", async () => {
    const app = HttpRouter.empty.pipe(HttpRouter.get("/ok", Effect.succeed(HttpServerResponse.text("ok"))))
    const server = await open(Listener.listen(app, { port: 0, host: "127.0.0.1", maxConnections: 2 }))
    const held = await Promise.all([connect(server.value), connect(server.value)])
    const third = await exchange(server.value, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
    expect([third.head, third.closed]).toEqual(["", true])
    for (const socket of held) socket.destroy()
    // The server counts the two closes as they reach it: a connection is accepted again soon after.
    await eventually(() => fetch(`http://127.0.0.1:${server.value}/ok`).then((response) => response.text()), (text) => text === "ok", {
      message: "a connection accepted once the held ones closed"
    })
    await server.close()
  })
})

const connect = (port: number) =>
  new Promise<net.Socket>((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => resolve(socket))
  })

/** Write `request` on a fresh connection and read until the server closes it. */
const exchange = async (port: number, request: string) => {
  const socket = await connect(port)
  let received = ""
  socket.setEncoding("utf8").on("data", (chunk: string) => (received += chunk))
  socket.on("error", () => undefined)
  socket.write(request)
  await new Promise((resolve) => socket.on("close", resolve))
  const split = received.indexOf("\r\n\r\n")
  return {
    head: split === -1 ? received : received.slice(0, split),
    body: split === -1 ? "" : received.slice(split + 4),
    closed: true
  }
}
