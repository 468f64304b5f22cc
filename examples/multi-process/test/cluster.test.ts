import { TestDatabase } from "@core/kernel/testing"
import { createClient } from "@core/sdk"
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Cluster, startCluster } from "../src/cluster.js"

/**
 * The multi-process example end to end: the identity service and two gateways in three processes
 * on the machine's PostgreSQL and Redis. Runs when `CORE_TEST_DATABASE_URL` and `REDIS_URL` are set
 * (the second pass of `.ci/run`).
 */
const adminUrl = process.env.CORE_TEST_DATABASE_URL
const redisUrl = process.env.REDIS_URL
const SLOW = 240_000
const LIMIT = 30

describe.skipIf(adminUrl === undefined || redisUrl === undefined)("two gateways and the identity service in three processes", () => {
  let cluster: Cluster
  let scope: Scope.CloseableScope
  const lines: Array<string> = []

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    const databaseUrl = await Effect.runPromise(Scope.extend(TestDatabase.scratchDatabase(adminUrl!), scope))
    cluster = await startCluster({
      databaseUrl,
      redisUrl: redisUrl!,
      env: { CORE_RATE_LIMIT_PER_MINUTE: String(LIMIT), LOG_LEVEL: "warn" },
      onLine: (line) => lines.push(line)
    })
  }, SLOW)

  afterAll(async () => {
    if (process.env.DEBUG_CLUSTER === "1") console.log(lines.filter((line) => /error|defect|fatal/i.test(line)).slice(0, 5).join("\n"))
    await cluster?.stop(5_000)
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  }, SLOW)

  const [a, b] = [0, 1] as const
  const gateway = (which: 0 | 1) => cluster.gateways[which].url

  it("shares one rate limit across both gateways", async () => {
    const path = "/api/v1/iam/.well-known/oauth-authorization-server"
    let firstRefused = 0
    for (let i = 1; i <= 2 * LIMIT + 2 && firstRefused === 0; i++) {
      const response = await fetch(`${gateway(i % 2 === 0 ? a : b)}${path}`)
      if (response.status === 429) firstRefused = i
      else expect(response.status).toBe(200)
    }
    expect(firstRefused).toBeGreaterThan(LIMIT - 2)
    expect(firstRefused).toBeLessThanOrEqual(LIMIT + 2)
    for (const which of [a, b]) {
      const refused = await fetch(`${gateway(which)}${path}`)
      expect(refused.status).toBe(429)
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("RATE_LIMITED")
    }
  }, SLOW)

  it("suspends a platform for both gateways within five seconds, and restores it", async () => {
    const { token } = await createClient({ baseUrl: gateway(a) }).iam.signUp({
      name: "Ada",
      email: "ada-cluster@example.com",
      password: "correct horse battery"
    })
    const setup = await fetch(`${gateway(a)}/api/v1/iam/api/core/org-setup`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: `core.session_token=${token}` },
      body: JSON.stringify({ name: "Acme", slug: "acme-cluster" })
    })
    expect(setup.status).toBe(201)
    const { orgId, platformId } = (await setup.json()) as { orgId: string; platformId: string }
    await createClient({ baseUrl: gateway(b), token }).iam.organizations.setActive({ organizationId: orgId })

    const session = (which: 0 | 1) =>
      fetch(`${gateway(which)}/api/v1/iam/api/core/session`, { headers: { authorization: `Bearer ${token}` } })
    const statusWithin = async (which: 0 | 1, status: number, ms: number) => {
      const deadline = Date.now() + ms
      for (;;) {
        const seen = (await session(which)).status
        if (seen === status || Date.now() > deadline) return seen
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    expect((await session(a)).status).toBe(200)
    expect((await session(b)).status).toBe(200)

    const service = createClient({ baseUrl: gateway(a), token: cluster.staticKey })
    await service.iam.platformStatus.set({ platformId, status: "suspended" })
    expect(await statusWithin(a, 451, 5_000)).toBe(451)
    expect(await statusWithin(b, 451, 5_000)).toBe(451)
    const body = (await (await session(b)).json()) as { error: { code: string; message: string } }
    expect(body.error).toEqual(expect.objectContaining({ code: "PLATFORM_SUSPENDED", message: `Platform ${platformId} has been suspended` }))

    await createClient({ baseUrl: gateway(b), token: cluster.staticKey }).iam.platformStatus.set({ platformId, status: "active" })
    expect(await statusWithin(a, 200, 5_000)).toBe(200)
    expect(await statusWithin(b, 200, 5_000)).toBe(200)
  }, SLOW)

  it("gives nothing to a caller that reaches the identity service directly with forged identity headers", async () => {
    const forged = await fetch(`${cluster.iam.url}/api/core/session`, {
      headers: { "x-core-user-id": "usr_01M82E766CNYM3D7AVVCZQ09JK", "x-core-role": "operator", "x-core-identity": "forged" }
    })
    expect(forged.status).toBe(401)
    const audit = await fetch(`${cluster.iam.url}/api/audit`, { headers: { "x-core-role": "service" } })
    expect(audit.status).toBe(401)
  }, SLOW)

  it("serves metrics and readiness (database and Redis) on each gateway", async () => {
    for (const which of [a, b]) {
      const ready = await fetch(`${gateway(which)}/ready`)
      expect(await ready.json()).toEqual({ status: "ready", checks: { database: "ok", redis: "ok" } })
      const metrics = await (await fetch(`${gateway(which)}/metrics`)).text()
      expect(metrics).toContain("core_http_requests_total{")
      expect(metrics).toMatch(/core_rate_limit_rejections_total \d+/)
    }
  }, SLOW)
})
