import { AccountsLive, AuthorizationLive, IamMigrations, IdentityHandlers, OutboxMailer } from "@core/auth"
import { Assemble, Upstream } from "@core/gateway"
import { CoreConfig, ForwardedIdentity, Ids } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { Effect, Layer, Logger, ManagedRuntime } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

/**
 * Decision 0190 through the real gateway as `core-server start` serves it (`Assemble.listener` over
 * identity's handlers in process, its rate limiter included, trusting
 * `X-Forwarded-For` as behind a proxy): identity's sign-in refusal reaches the client with its own
 * `Retry-After` and `RateLimit-*`, and it refuses only the address that failed.
 */
const PASSWORD = "correct horse battery staple"
const quiet = Logger.replace(Logger.defaultLogger, Logger.none)
const env = {
  NODE_ENV: "test",
  CORE_SECRET: "limits-gateway-secret-0123456789-abcdef",
  CORE_STATIC_API_KEY: "limits-gateway-static-key-0123456789",
  CORE_TRUST_PROXY: "1"
}

describe("sign-in limits through the gateway", () => {
  const runtime = ManagedRuntime.make(AccountsLive.pipe(
    Layer.provideMerge(AuthorizationLive),
    Layer.provideMerge(OutboxMailer.layer),
    Layer.provideMerge(Layer.mergeAll(TestDatabase.layer([IamMigrations]), CoreConfig.layer(env), Ids.layer)),
    Layer.provideMerge(quiet),
    Layer.orDie
  ))
  let server: http.Server
  let url: string
  beforeAll(async () => {
    const config = await runtime.runPromise(CoreConfig)
    const trust = { key: ForwardedIdentity.keyFrom(config.secret), audience: "iam" }
    const upstream = await runtime.runPromise(Upstream.fromHandlers("IAM", IdentityHandlers, { trust }) as Effect.Effect<Upstream.Upstream>)
    const listener = await runtime.runPromise(Assemble.listener({ config, upstreams: [upstream] }))
    server = http.createServer(listener)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }, 60_000)
  afterAll(async () => {
    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
    await runtime.dispose()
  })

  const post = (path: string, json: unknown, ip: string) =>
    fetch(`${url}/api/v1/iam${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": ip },
      body: JSON.stringify(json)
    })

  it("answers the stranger's address 429 with identity's Retry-After and RateLimit-*, and signs the owner in from another", async () => {
    const email = `limits-${Date.now().toString(36)}@example.com`
    expect((await post("/api/auth/sign-up/email", { name: "Ada", email, password: PASSWORD }, "198.51.100.1")).status).toBe(200)
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await post("/api/auth/sign-in/email", { email, password: "wrong password!" }, "192.0.2.66")).status).toBe(401)
    }
    const limited = await post("/api/auth/sign-in/email", { email, password: PASSWORD }, "192.0.2.66")
    expect(limited.status).toBe(429)
    expect(await limited.json()).toEqual({ code: "RATE_LIMITED", message: "Too many failed sign-in attempts. Try again later." })
    const retryAfter = Number(limited.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThan(800)
    expect([limited.headers.get("ratelimit-limit"), limited.headers.get("ratelimit-remaining"), limited.headers.get("ratelimit-reset")])
      .toEqual(["5", "0", String(retryAfter)])
    expect(limited.headers.get("x-request-id")).toBeTruthy()

    const owner = await post("/api/auth/sign-in/email", { email, password: PASSWORD }, "198.51.100.2")
    expect(owner.status).toBe(200)
    expect(owner.headers.get("ratelimit-limit")).toBe("10")
  }, 60_000)
})

