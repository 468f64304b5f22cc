import { TestDatabase } from "@core/kernel/testing"
import { createClient } from "@core/sdk"
import { Effect, Exit, Scope } from "effect"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { builtCli } from "../../../packages/cli/test/built-cli.js"
import { core, tempHome, writeLogin } from "../../../packages/cli/test/login-support.js"
import { tenantOf, until } from "../../../tests/support/tenants.js"
import { site } from "../../../tests/support/sites.js"
import { type Cluster, SERVICES, startCluster } from "../src/cluster.js"

/**
 * The multi-process example end to end: every service in its own process (`serve --service`), two
 * gateways and two provisioning workers, on the machine's PostgreSQL and Redis. Runs when
 * `CORE_TEST_DATABASE_URL` and `REDIS_URL` are set — only CI's second pass has them, so it runs
 * once per CI run (it is not conditioned on `runsOncePerCi`, which is false in that pass).
 */
const adminUrl = process.env.CORE_TEST_DATABASE_URL
/**
 * The machine's Redis, in a logical database of the cluster's own: the other files of CI's second
 * pass use database 0 with the same rate-limit keys (requests from 127.0.0.1), and counted
 * alongside them the cluster's shared limit refused early.
 */
const redisUrl = process.env.REDIS_URL === undefined ? undefined : (() => {
  const url = new URL(process.env.REDIS_URL)
  url.pathname = "/9"
  return url.toString()
})()
const SLOW = 240_000
const LIMIT = 120

describe.skipIf(adminUrl === undefined || redisUrl === undefined)("every service in its own process, two gateways and two workers", () => {
  let cluster: Cluster
  let scope: Scope.CloseableScope
  let databaseUrl = ""
  let cli = ""
  const lines: Array<string> = []

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    databaseUrl = await Effect.runPromise(Scope.extend(TestDatabase.scratchDatabase(adminUrl!), scope))
    const started = performance.now()
    // The CLI's build and the cluster's start side by side.
    const [built, running] = await Promise.all([
      builtCli(),
      startCluster({
        databaseUrl,
        redisUrl: redisUrl!,
        env: { CORE_RATE_LIMIT_PER_MINUTE: String(LIMIT), LOG_LEVEL: "warn", CORE_WORKER_POLL_MS: "200" },
        onLine: (line) => lines.push(line)
      })
    ])
    cli = built.bundle
    cluster = running
    lines.push(`[test] cluster and CLI ready in ${Math.round(performance.now() - started)} ms`)
  }, SLOW)

  afterAll(async () => {
    if (process.env.DEBUG_CLUSTER === "1") {
      console.log(lines.filter((line) => /error|defect|fatal|not flushed|exited|\[test\]/i.test(line)).slice(0, 20).join("\n"))
      for (const name of ["gateway-a", "gateway-b", "provisioning", "billing"]) console.log(lines.filter((line) => line.startsWith(`[${name}]`)).slice(-8).join("\n"))
    }
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
    const statusWithin = async (which: 0 | 1, status: number, ms: number) => (await until(() => session(which), (seen) => seen.status === status, ms)).status
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
      expect((await fetch(`${gateway(which)}/metrics`)).status).toBe(401)
      const metrics = await (await fetch(`${gateway(which)}/metrics`, { headers: { authorization: `Bearer ${cluster.staticKey}` } })).text()
      expect(metrics).toContain("http_server_request_duration_seconds_count{")
      expect(metrics).toMatch(/core_rate_limit_rejections_total \d+/)
    }
  }, SLOW)

  it("deploys a site with `core deploy` through gateway A: it answers at <project>.localhost on both gateways, a worker ran the job, /mcp answers a tool call, and billing counts the usage", async () => {
    const slug = "acme-sites"
    const ada = await tenantOf(gateway(a), "Ada", slug)
    const home = tempHome()
    const work = mkdtempSync(join(tmpdir(), "core-multi-site-"))
    try {
      writeLogin(home, gateway(a), ada.token, ada.platformId, "owner")
      const dist = join(work, "dist")
      mkdirSync(join(dist, "assets"), { recursive: true })
      writeFileSync(join(dist, "index.html"), "<h1>many processes</h1>")
      writeFileSync(join(dist, "assets", "app.0a1b2c3d.js"), "console.log('multi')")
      const deployed = await core(home, ["deploy", dist, "--json"], { CORE_API_URL: gateway(a) }, cli)
      expect(deployed.code, `${deployed.stdout}\n${deployed.stderr}`).toBe(0)
      expect(JSON.parse(deployed.stdout)).toMatchObject({ status: "success", branch: "main", live: true })

      // The site through both gateways, which forward it to the provisioning service.
      for (const which of [a, b]) {
        expect(await site(gateway(which), `${slug}.localhost`)).toEqual({ status: 200, text: "<h1>many processes</h1>" })
        expect((await site(gateway(which), `${slug}.localhost`, "/assets/app.0a1b2c3d.js")).text).toBe("console.log('multi')")
      }
      expect((await site(gateway(b), "nothing-here.localhost")).status).toBe(404)

      // The deploy job was run by one of the two `core-server worker` processes.
      const client = new pg.Client({ connectionString: databaseUrl })
      await client.connect()
      try {
        const { rows } = await client.query<{ status: string; locked_by: string }>(
          "SELECT status, locked_by FROM provisioning.jobs WHERE type = 'deploy.site'"
        )
        expect(rows.length).toBeGreaterThanOrEqual(1)
        for (const row of rows) {
          expect(row.status).toBe("COMPLETED")
          expect(cluster.workers.map((worker) => worker.workerId)).toContain(row.locked_by)
        }
      } finally {
        await client.end()
      }

      // MCP through gateway B, forwarded to the vault's process.
      const mcp = await fetch(`${gateway(b)}/mcp`, {
        method: "POST",
        headers: { ...ada.bearer, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_adr", arguments: { number: 1 } } })
      })
      expect(mcp.status).toBe(200)
      const answer = (await mcp.json()) as { id: number; result: { isError?: boolean; content: Array<{ type: string; text: string }> } }
      expect(answer.id).toBe(1)
      expect(answer.result.isError ?? false).toBe(false)
      expect(answer.result.content[0]).toMatchObject({ type: "text", text: expect.any(String) })

      // Billing (its own process) counts the build and the gateways' requests.
      const usage = await until(
        async () => (await ada.client.billing.usage.current(ada.platformId)).usage,
        (totals) => totals.builds >= 1 && totals.requests > 0,
        30_000
      )
      expect(usage.builds).toBeGreaterThanOrEqual(1)
      expect(usage.requests).toBeGreaterThan(0)
    } finally {
      home.remove()
      rmSync(work, { recursive: true, force: true })
    }
  }, SLOW)

  it("runs each service alone: every one answers /ready on its own port", async () => {
    for (const service of SERVICES) {
      const ready = await fetch(`${cluster.services[service].url}/ready`)
      expect([service, ready.status]).toEqual([service, 200])
    }
    expect(cluster.workers.map((worker) => worker.child.exitCode)).toEqual([null, null])
  }, SLOW)
})
