import { spawn } from "node:child_process"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { builtCli } from "../packages/cli/test/built-cli.js"
import { baseEnv, core, tempHome, type TempHome, writeLogin } from "../packages/cli/test/login-support.js"
import type { CoreRun } from "../packages/cli/test/run-core.js"
import { eventually } from "./support/poll.js"
import { useSharedServer } from "./support/sharedServer.js"
import { call, type Tenant, tenantOf } from "./support/tenants.js"

/**
 * `core webhooks`, `core events` and `core listen` with the real built binary against the real
 * all-in-one server (the shared one, which allows webhooks to 127.0.0.1): endpoints created,
 * listed, tested, rotated and deleted, another organization's answering 404; events listed and
 * read; and `core listen` forwarding the real `tenant.created` events of the session's
 * organization to a local receiver, where `standardwebhooks` verifies them with the secret it
 * printed — going on while the receiver is down, and ending cleanly on Ctrl-C (SIGINT).
 */
const SLOW = 240_000
let bin = ""

beforeAll(async () => {
  bin = (await builtCli()).bundle
}, SLOW)

const json = <T>(run: CoreRun): T => {
  expect(run.code, run.stderr).toBe(0)
  return JSON.parse(run.stdout) as T
}

interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** A local receiver on `port` (0: any): records every request and answers 204. */
const startReceiver = async (port = 0) => {
  const received: Array<Received> = []
  const server: Server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      received.push({ path: request.url ?? "/", headers: request.headers, body: Buffer.concat(chunks).toString("utf8") })
      response.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
  return {
    port: (server.address() as AddressInfo).port,
    received,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  }
}

/** `core <args>` running in the background, its output read while it runs. */
const spawnBuilt = (home: TempHome, args: ReadonlyArray<string>, env: Record<string, string>) => {
  const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, NO_COLOR: "1", ...baseEnv(home, env) }, stdio: ["ignore", "pipe", "pipe"] })
  const output = { stdout: "", stderr: "" }
  child.stdout.on("data", (chunk: Buffer) => (output.stdout += chunk.toString()))
  child.stderr.on("data", (chunk: Buffer) => (output.stderr += chunk.toString()))
  const done = new Promise<CoreRun>((resolve) => child.on("close", (code) => resolve({ code: code ?? -1, ...output })))
  const line = (pattern: RegExp, message: string) =>
    eventually(() => pattern.exec(output.stdout), (match) => match !== null, { message: () => `${message} in:\n${output.stdout}\n${output.stderr}`, timeout: 30_000 })
  return { child, output, done, line }
}

describe("core webhooks, core events and core listen (built binary) against the all-in-one server", () => {
  const server = useSharedServer(SLOW)
  let tenant: Tenant
  let other: Tenant
  let home: TempHome
  let otherHome: TempHome
  const run = (args: ReadonlyArray<string>) => core(home, args, { CORE_API_URL: server.base }, bin)
  const asOther = (args: ReadonlyArray<string>) => core(otherHome, args, { CORE_API_URL: server.base }, bin)
  const createTenant = async (slug: string): Promise<string> => {
    const created = await call(server.base, "POST", `/api/v1/platforms/${tenant.platformId}/entities`, tenant.bearer, { name: slug, slug, type: "tenant" })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    return created.body.id as string
  }

  beforeAll(async () => {
    const suffix = Date.now().toString(36)
    tenant = await tenantOf(server.base, "Hooks CLI", `hooks-cli-${suffix}`)
    other = await tenantOf(server.base, "Other CLI", `other-cli-${suffix}`)
    home = tempHome()
    otherHome = tempHome()
    writeLogin(home, server.base, tenant.token, tenant.platformId, "owner")
    writeLogin(otherHome, server.base, other.token, other.platformId, "owner")
  }, SLOW)
  afterAll(() => {
    home?.remove()
    otherHome?.remove()
  })

  it("creates, lists, tests, rotates and deletes an endpoint; another organization's answers 404; reads events", async () => {
    const receiver = await startReceiver()
    try {
      const url = `http://127.0.0.1:${receiver.port}/hooks`
      const created = await run(["webhooks", "create", url, "--events", "tenant.created,webhook.test", "--description", "shop", "--json"])
      const endpoint = json<{ id: string; url: string; events: Array<string>; secret: string; enabled: boolean }>(created)
      expect(endpoint).toMatchObject({ url, events: ["tenant.created", "webhook.test"], enabled: true })
      expect(endpoint.secret).toMatch(/^whsec_/)
      expect(created.stderr).toContain("shown this once")
      const text = await run(["webhooks", "create", `${url}/2`])
      expect(text.code, text.stderr).toBe(0)
      expect(text.stdout).toMatch(/^Created webhook endpoint whe_\S+ for http:\/\/127\.0\.0\.1:\d+\/hooks\/2 \(every event type\)\.\nSigning secret: whsec_\S+\n$/)
      const everyType = /whe_\w+/.exec(text.stdout)![0]

      const listed = json<{ data: Array<{ id: string; secret?: string }>; nextCursor: string | null }>(await run(["webhooks", "list", "--json"]))
      expect(listed.data.map((row) => row.id)).toContain(endpoint.id)
      expect(listed.data.every((row) => row.secret === undefined)).toBe(true)
      const first = json<{ data: Array<{ id: string }>; nextCursor: string | null }>(await run(["webhooks", "list", "--limit", "1", "--json"]))
      expect([first.data.length, typeof first.nextCursor]).toEqual([1, "string"])
      expect(json<{ data: Array<{ id: string }> }>(await run(["webhooks", "list", "--all", "--limit", "1", "--json"])).data).toHaveLength(2)
      const table = await run(["webhooks", "list"])
      expect(table.stdout).toMatch(/^ID\s+URL\s+EVENTS\s+PLATFORM\s+ENABLED\s+DESCRIPTION\s+CREATED\n/)
      expect(table.stdout).toContain("tenant.created,webhook.test")

      // The test event, delivered and logged; the receiver verifies it with the endpoint's secret.
      const tested = json<{ id: string; type: string }>(await run(["webhooks", "test", endpoint.id, "--json"]))
      expect(tested.type).toBe("webhook.test")
      const [delivery] = await eventually(() => receiver.received, (list) => list.length >= 1, { message: "the test delivery" })
      expect(new Webhook(endpoint.secret).verify(delivery!.body, delivery!.headers as Record<string, string>)).toMatchObject({ id: tested.id, type: "webhook.test" })
      const log = await eventually(async () => json<{ data: Array<{ eventId: string; statusCode: number; status: string }> }>(await run(["webhooks", "deliveries", endpoint.id, "--json"])),
        (page) => page.data.length >= 1, { message: "the attempt in the delivery log" })
      expect(log.data[0]).toMatchObject({ eventId: tested.id, statusCode: 204, status: "succeeded" })
      expect((await run(["webhooks", "deliveries", endpoint.id])).stdout).toMatch(/^ID\s+EVENT\s+TYPE\s+ATTEMPT\s+STATUS\s+CODE\s+MS\s+ERROR\s+AT\n/)

      // Retry an attempt: the same event again, with the same webhook-id; replay and update.
      const attempt = json<{ data: Array<{ id: string }> }>(await run(["webhooks", "deliveries", endpoint.id, "--json"])).data[0]!
      expect(json<{ endpointId: string; eventId: string }>(await run(["webhooks", "retry", attempt.id, "--json"]))).toEqual({ endpointId: endpoint.id, eventId: tested.id })
      const [, retried] = await eventually(() => receiver.received, (list) => list.length >= 2, { message: "the retried delivery" })
      expect(retried!.headers["webhook-id"]).toBe(tested.id)
      expect(json<{ id: string; queued: number }>(await run(["webhooks", "replay", endpoint.id, "--since", "2026-01-01T00:00:00Z", "--json"]))).toMatchObject({ id: endpoint.id, queued: expect.any(Number) })
      const noSince = await run(["webhooks", "replay", endpoint.id])
      expect([noSince.code, noSince.stderr]).toEqual([2, expect.stringContaining("core webhooks replay needs --since <time>")])
      expect(json<{ description: string; enabled: boolean }>(await run(["webhooks", "update", endpoint.id, "--description", "shop 2", "--disable", "--json"]))).toMatchObject({ description: "shop 2", enabled: false })
      expect((await run(["webhooks", "update", endpoint.id, "--enable"])).stdout).toBe(`Updated webhook endpoint ${endpoint.id}: ${url} (tenant.created, webhook.test), enabled.\n`)
      const nothing = await run(["webhooks", "update", endpoint.id])
      expect([nothing.code, nothing.stderr]).toEqual([2, expect.stringContaining("Nothing to change")])

      const rotated = json<{ id: string; secret: string }>(await run(["webhooks", "rotate", endpoint.id, "--json"]))
      expect(rotated.id).toBe(endpoint.id)
      expect(rotated.secret).toMatch(/^whsec_/)
      expect(rotated.secret).not.toBe(endpoint.secret)

      // Another organization: 404 for each route of this endpoint, and its own list without it.
      for (const args of [["webhooks", "test", endpoint.id], ["webhooks", "rotate", endpoint.id], ["webhooks", "deliveries", endpoint.id], ["webhooks", "update", endpoint.id, "--enable"], ["webhooks", "replay", endpoint.id, "--since", "2026-01-01T00:00:00Z"], ["webhooks", "retry", attempt.id], ["webhooks", "delete", endpoint.id, "--yes"]]) {
        const answer = await asOther(args)
        expect([args, answer.code, answer.stdout, /NOT_FOUND/.test(answer.stderr)]).toEqual([args, 1, "", true])
      }
      expect(json<{ data: Array<{ id: string }> }>(await asOther(["webhooks", "list", "--json"])).data).toEqual([])

      // Delete asks first (exit 2 without a terminal or --yes), then deletes; a second delete is 404.
      const unconfirmed = await run(["webhooks", "delete", endpoint.id])
      expect([unconfirmed.code, unconfirmed.stderr]).toEqual([2, expect.stringContaining("pass --yes")])
      expect(json<{ id: string; deleted: boolean }>(await run(["webhooks", "delete", endpoint.id, "--yes", "--json"]))).toEqual({ id: endpoint.id, deleted: true })
      expect(json<{ data: Array<{ id: string }> }>(await run(["webhooks", "list", "--json"])).data.map((row) => row.id)).not.toContain(endpoint.id)
      const again = await run(["webhooks", "delete", endpoint.id, "--yes"])
      expect([again.code, /NOT_FOUND/.test(again.stderr)]).toEqual([1, true])
      expect((await run(["webhooks", "delete", everyType, "--yes"])).stdout).toBe(`Deleted webhook endpoint ${everyType}.\n`)

      // Bad input: a usage error before any request (exit 2), and the server's 400 (exit 1).
      const badType = await run(["webhooks", "create", url, "--events", "Tenant Created"])
      expect([badType.code, badType.stderr]).toEqual([2, expect.stringContaining("--events takes comma-separated event types")])
      const unknown = await run(["webhooks", "create", url, "--events", "tenant.exploded"])
      expect([unknown.code, /VALIDATION_ERROR/.test(unknown.stderr)]).toEqual([1, true])

      // Events: the test event listed by type and read; another organization's is 404.
      const events = json<{ data: Array<{ id: string; type: string }> }>(await run(["events", "list", "--type", "webhook.test", "--json"]))
      expect(events.data.map((event) => event.id)).toContain(tested.id)
      expect(json<{ id: string; organizationId: string }>(await run(["events", "get", tested.id, "--json"]))).toMatchObject({ id: tested.id, organizationId: tenant.orgId })
      expect((await run(["events", "get", tested.id])).stdout).toMatch(new RegExp(`^webhook\\.test ${tested.id} \\(version 1\\) at \\S+\\n  Organization: ${tenant.orgId}\\n`))
      const foreign = await asOther(["events", "get", tested.id])
      expect([foreign.code, /NOT_FOUND/.test(foreign.stderr)]).toEqual([1, true])
      expect((await run(["events", "list", "--type", "a,b"])).code).toBe(2)
    } finally {
      await receiver.close()
    }
  }, SLOW)

  it("core listen forwards the organization's events, signed with the secret it prints, goes on while the receiver is down, and ends on Ctrl-C", async () => {
    let receiver = await startReceiver()
    const port = receiver.port
    const listen = spawnBuilt(home, ["listen", "--forward-to", `http://127.0.0.1:${port}/hooks`, "--events", "tenant.created"], { CORE_API_URL: server.base })
    try {
      const [, secret] = (await listen.line(/Your webhook signing secret is (whsec_\S+) \(Ctrl-C to quit\)\n/, "the secret line"))!
      expect(listen.output.stdout).toMatch(new RegExp(`^Ready! Forwarding tenant\\.created to http://127\\.0\\.0\\.1:${port}/hooks\\n`))

      // A real event: a tenant created in the session's organization (an API key's creation is another type, not forwarded).
      const shop = await createTenant("listen-shop")
      expect((await call(server.base, "POST", "/api/v1/iam/api/core/apikeys", tenant.bearer, { organizationId: tenant.orgId, permissions: ["events:read"] })).status).toBe(201)
      const forwarded = () => receiver.received.filter((request) => request.path === "/hooks")
      const [delivery] = await eventually(forwarded, (list) => list.length >= 1, { message: "the forwarded tenant.created", timeout: 20_000 })
      const event = new Webhook(secret!).verify(delivery!.body, delivery!.headers as Record<string, string>) as { id: string; type: string; data: { id: string } }
      expect(event).toMatchObject({ type: "tenant.created", organizationId: tenant.orgId, data: { id: shop } })
      expect(delivery!.headers["webhook-id"]).toBe(event.id)
      expect(delivery!.headers["user-agent"]).toMatch(/^core-cli\/\S+ \(core listen\)$/)
      await listen.line(new RegExp(`tenant\\.created  ${event.id}  -> 204 \\(\\d+ ms\\)\\n`), "the line of the forwarded event")

      // The receiver goes down: the event is reported, and listening goes on.
      await receiver.close()
      await createTenant("listen-down")
      await listen.line(/tenant\.created  evt_\S+  -> failed: ECONNREFUSED \(is the receiver running\?\)\n/, "the line of the refused event")
      receiver = await startReceiver(port)
      const back = await createTenant("listen-back")
      const [again] = await eventually(() => receiver.received.filter((request) => request.path === "/hooks"), (list) => list.length >= 1, {
        message: "the event after the receiver came back",
        timeout: 20_000
      })
      expect(new Webhook(secret!).verify(again!.body, again!.headers as Record<string, string>)).toMatchObject({ type: "tenant.created", data: { id: back } })

      // Ctrl-C: exit 0, a summary on stderr; only tenant.created events were forwarded.
      listen.child.kill("SIGINT")
      const ended = await listen.done
      expect(ended.code, ended.stderr).toBe(0)
      expect(ended.stderr).toContain("Stopped: forwarded 3 events.")
      const lines = ended.stdout.trimEnd().split("\n")
      expect(lines.slice(2).map((text) => text.split("  ")[1])).toEqual(["tenant.created", "tenant.created", "tenant.created"])
    } finally {
      listen.child.kill("SIGKILL")
      await receiver.close()
    }
  }, SLOW)

  it("core listen refuses bad input before connecting, and an unknown event type with the server's 400", async () => {
    const missing = await run(["listen"])
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining("Missing --forward-to <url>")])
    const notUrl = await run(["listen", "--forward-to", "localhost:3000"])
    expect([notUrl.code, notUrl.stderr]).toEqual([2, expect.stringContaining("--forward-to must be an http(s) URL")])
    const unknown = await run(["listen", "--forward-to", "http://127.0.0.1:9/hooks", "--events", "tenant.exploded"])
    expect([unknown.code, unknown.stdout]).toEqual([1, ""])
    expect(unknown.stderr).toContain("Unknown event type tenant.exploded")
    const loggedOut = tempHome()
    try {
      const answer = await core(loggedOut, ["listen", "--forward-to", "http://127.0.0.1:9/hooks"], { CORE_API_URL: server.base }, bin)
      expect([answer.code, answer.stderr]).toEqual([1, "core: Not logged in. Run: core login\n"])
    } finally {
      loggedOut.remove()
    }
  }, SLOW)
})
