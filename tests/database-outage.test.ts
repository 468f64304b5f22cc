import { Effect, Exit, Scope } from "effect"
import { TestDatabase } from "@core/kernel/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launch, ready, type Running } from "../packages/server/test/ServerProcess.js"
import { eventually } from "./support/poll.js"
import { tcpProxy, type TcpProxy } from "./support/tcpProxy.js"
import { call, type Tenant, tenantOf, until } from "./support/tenants.js"

/**
 * The all-in-one server while its PostgreSQL refuses connections: every request that
 * needs the database answers 503 `UNAVAILABLE` with `Retry-After` — the gateway's own dependency
 * (identity, and identity's database) is down, no upstream failed — and the server serves again
 * once the database is back. The database is reached through a TCP proxy the test takes down.
 */
const SLOW = 180_000
const url = TestDatabase.url

describe.skipIf(url === undefined)("the server while PostgreSQL refuses connections", () => {
  const scope = Effect.runSync(Scope.make())
  let proxy: TcpProxy
  let server: Running
  let base: string
  let ada: Tenant

  beforeAll(async () => {
    const database = new URL(await Effect.runPromise(Scope.extend(TestDatabase.scratchDatabase(url!), scope)))
    proxy = await tcpProxy({ host: database.hostname, port: Number(database.port || 5432) })
    database.hostname = "127.0.0.1"
    database.port = String(proxy.port)
    server = launch(["start"], { PORT: "0", DATABASE_URL: database.toString(), CORE_RATE_LIMIT_AUTH_PER_MINUTE: "1000" })
    base = await ready(server)
    ada = await tenantOf(base, "Ada", `ada-outage-${Date.now().toString(36)}`)
  }, SLOW)

  afterAll(async () => {
    server?.child.kill("SIGKILL")
    await server?.exited
    await proxy?.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }, SLOW)

  const unavailable = (response: { status: number; headers: Headers; body: any }, requestId: string) => {
    expect(response.status).toBe(503)
    expect(response.headers.get("retry-after")).toMatch(/^[1-9]\d*$/)
    expect(response.body).toEqual({
      error: { code: "UNAVAILABLE", message: "The service is temporarily unavailable; try again shortly", requestId, details: null }
    })
  }

  it("answers 503 UNAVAILABLE with Retry-After, never 502 or 500, and names no address; then serves again", async () => {
    expect((await call(base, "GET", "/api/v1/platforms", ada.bearer)).status).toBe(200)
    await proxy.refuse()

    // A credential the gateway has not seen: identity cannot check it.
    unavailable(await call(base, "GET", "/api/v1/platforms", { authorization: "Bearer not-a-session", "x-request-id": "outage-1" }), "outage-1")
    // A session the gateway knows: the registry cannot read.
    unavailable(await call(base, "GET", "/api/v1/platforms", { ...ada.bearer, "x-request-id": "outage-2" }), "outage-2")
    unavailable(await call(base, "GET", `/api/v1/cli/platforms/${ada.platformId}/deployments`, { ...ada.bearer, "x-request-id": "outage-3" }), "outage-3")
    // An identity route of its own: the better-auth shape, with the same status and header.
    const signIn = await call(base, "POST", "/api/v1/iam/api/auth/sign-in/email", { "x-request-id": "outage-4" }, { email: "ada@example.com", password: "whatever it is" })
    expect([signIn.status, signIn.headers.get("retry-after"), signIn.body]).toEqual([
      503, expect.stringMatching(/^[1-9]\d*$/), { code: "UNAVAILABLE", message: "The service is temporarily unavailable; try again shortly" }
    ])
    // OAuth's own form: `server_error`, with the 503 and Retry-After (a polling CLI waits, never stops).
    const poll = await fetch(`${base}/api/v1/iam/oauth/device/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: "x".repeat(43), client_id: "core-cli" })
    })
    expect([poll.status, poll.headers.get("retry-after"), await poll.json()]).toEqual([
      503, expect.stringMatching(/^[1-9]\d*$/), { error: "server_error", error_description: "The service is temporarily unavailable; try again shortly" }
    ])
    const readiness = await fetch(`${base}/ready`)
    expect(readiness.status).toBe(503)
    // The background loops (the provisioning worker polls every second) meet the outage too: one
    // warning naming the reason, not a stack with the address per poll (the CI failure of stop 34).
    const output = () => server.output.stdout + server.output.stderr
    await eventually(output, (text) => text.includes("provisioning worker: database unavailable"), {
      message: "the provisioning worker's outage warning", timeout: 30_000, interval: 100
    })
    const during = output()
    expect(during).toContain("dependency unavailable")
    expect(during).not.toContain(`127.0.0.1:${proxy.port}`)
    expect(during).not.toContain("Failed to acquire connection")
    expect(during.split("provisioning worker: database unavailable").length - 1).toBe(1)

    await proxy.restore()
    const back = await until(() => call(base, "GET", "/api/v1/platforms", ada.bearer), (r) => r.status === 200, 30_000)
    expect(back.status).toBe(200)
    await eventually(output, (text) => text.includes("provisioning worker: database reachable again"), {
      message: "the provisioning worker's recovery line", timeout: 30_000, interval: 100
    })
    expect(output()).not.toContain(`127.0.0.1:${proxy.port}`)
    expect((await call(base, "GET", "/api/v1/platforms", { authorization: "Bearer not-a-session" })).status).toBe(401)
  }, SLOW)
})
