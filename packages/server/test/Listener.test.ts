import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Deferred, Effect, Exit, Scope } from "effect"
import { describe, expect, it } from "vitest"
import * as Listener from "../src/Listener.js"

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
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(closed).toBe(false)
    await expect(fetch(`${base}/fast`)).rejects.toThrow()

    const releasedAt = Date.now()
    await Effect.runPromise(Deferred.succeed(release, undefined))
    expect(await slow).toEqual([200, "slow done"])
    await closing
    expect(Date.now() - releasedAt).toBeLessThan(1_000)
  })

  it("cuts requests still running after the grace period", async () => {
    const app = HttpRouter.empty.pipe(HttpRouter.get("/hang", Effect.never))
    const server = await open(Listener.listen(app, { port: 0, host: "127.0.0.1", grace: "200 millis" }))
    const hanging = fetch(`http://127.0.0.1:${server.value}/hang`).then(() => "answered", () => "cut")
    await new Promise((resolve) => setTimeout(resolve, 100))
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
})
