import { AccountsLive, AuthorizationLive, IamMigrations, IdentityHandlers, OutboxMailer } from "@core/auth"
import { Assemble, Upstream } from "@core/gateway"
import { CoreConfig, ForwardedIdentity, Ids } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer, Logger, ManagedRuntime } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

/**
 * Decision 0211: the gateway embedded as an Effect app (`Assemble.gateway`, served here by
 * `@effect/platform-node` on a real socket, as a host's Effect server would) hands its in-process
 * upstreams the client address by the same rule as `core-server start`'s Node listener: behind a
 * trusted proxy (`CORE_TRUST_PROXY`) the first `X-Forwarded-For` address, else the socket's. Identity's
 * sign-in limits (decision 0190, by account and address) tell two clients apart only through it.
 */
const PASSWORD = "correct horse battery staple"
const quiet = Logger.replace(Logger.defaultLogger, Logger.none)

const embedded = (trustProxy: boolean) => {
  const env = {
    NODE_ENV: "test",
    CORE_SECRET: "embedded-address-secret-0123456789-abcdef",
    CORE_STATIC_API_KEY: "embedded-address-static-key-0123456789",
    ...(trustProxy ? { CORE_TRUST_PROXY: "1" } : {})
  }
  const runtime = ManagedRuntime.make(AccountsLive.pipe(
    Layer.provideMerge(AuthorizationLive),
    Layer.provideMerge(OutboxMailer.layer),
    Layer.provideMerge(Layer.mergeAll(TestDatabase.layer([IamMigrations]), CoreConfig.layer(env), Ids.layer)),
    Layer.provideMerge(quiet),
    Layer.orDie
  ))
  let server: http.Server | undefined
  let url = ""
  beforeAll(async () => {
    const config = await runtime.runPromise(CoreConfig)
    const trust = { key: ForwardedIdentity.keyFrom(config.secret), audience: "iam" }
    const upstream = await runtime.runPromise(Upstream.fromHandlers("IAM", IdentityHandlers, { trust }) as Effect.Effect<Upstream.Upstream>)
    const app = Assemble.gateway({ config, upstreams: [upstream] })
    const handler = await runtime.runPromise(NodeHttpServer.makeHandler(app))
    server = http.createServer(handler)
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }, 60_000)
  afterAll(async () => {
    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
    await runtime.dispose()
  })
  return (path: string, json: unknown, forwardedFor: string) =>
    fetch(`${url}/api/v1/iam${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
      body: JSON.stringify(json)
    })
}

const failFiveTimes = async (post: ReturnType<typeof embedded>, email: string, forwardedFor: string) => {
  expect((await post("/api/auth/sign-up/email", { name: "Ada", email, password: PASSWORD }, "198.51.100.1")).status).toBe(200)
  for (let attempt = 0; attempt < 5; attempt++) {
    expect((await post("/api/auth/sign-in/email", { email, password: "wrong password!" }, forwardedFor)).status).toBe(401)
  }
  const limited = await post("/api/auth/sign-in/email", { email, password: PASSWORD }, forwardedFor)
  expect(limited.status).toBe(429)
  expect(await limited.json()).toEqual({ code: "RATE_LIMITED", message: "Too many failed sign-in attempts. Try again later." })
}

describe("the embedded gateway behind a trusted proxy", () => {
  const post = embedded(true)
  it("limits two clients with different X-Forwarded-For separately", async () => {
    const email = `embedded-trusted-${Date.now().toString(36)}@example.com`
    await failFiveTimes(post, email, "192.0.2.66")
    const owner = await post("/api/auth/sign-in/email", { email, password: PASSWORD }, "198.51.100.2")
    expect(owner.status).toBe(200)
    expect((await owner.json() as { user: { email: string } }).user.email).toBe(email)
  }, 60_000)
})

describe("the embedded gateway without a trusted proxy", () => {
  const post = embedded(false)
  it("ignores a forged X-Forwarded-For: every request is the socket's client", async () => {
    const email = `embedded-untrusted-${Date.now().toString(36)}@example.com`
    await failFiveTimes(post, email, "192.0.2.66")
    const forged = await post("/api/auth/sign-in/email", { email, password: PASSWORD }, "198.51.100.2")
    expect(forged.status).toBe(429)
    expect(await forged.json()).toEqual({ code: "RATE_LIMITED", message: "Too many failed sign-in attempts. Try again later." })
  }, 60_000)
})
