import { BadRequestError, CoreAbortError, type CoreEvent, createClient, type EventType } from "@core/sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "./support/poll.js"
import { useSharedServer } from "./support/sharedServer.js"
import { type TcpProxy, tcpProxy } from "./support/tcpProxy.js"
import { call, type Tenant, tenantOf } from "./support/tenants.js"

/**
 * `client.events.stream` against the real all-in-one server (the shared one), through a TCP proxy
 * the test cuts: the organization's events of the asked types arrive in order; a connection
 * dropped while events are recorded — before the first event too — is opened again with
 * `Last-Event-ID`, and every event arrives exactly once; another organization's events never do; `signal` ends the iteration; a refused
 * stream (an unknown type) throws at once instead of reconnecting.
 */
describe("client.events.stream (the SDK) against the all-in-one server", () => {
  const server = useSharedServer()
  let proxy: TcpProxy
  let tenant: Tenant
  let other: Tenant

  beforeAll(async () => {
    const { hostname, port } = new URL(server.base)
    proxy = await tcpProxy({ host: hostname, port: Number(port) })
    const suffix = Date.now().toString(36)
    tenant = await tenantOf(server.base, "Streamed", `streamed-${suffix}`)
    other = await tenantOf(server.base, "Elsewhere", `elsewhere-${suffix}`)
  }, 180_000)
  afterAll(() => proxy?.close())

  const createTenant = async (who: Tenant, slug: string): Promise<string> => {
    const created = await call(server.base, "POST", `/api/v1/platforms/${who.platformId}/entities`, who.bearer, { name: slug, slug, type: "tenant" })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    return created.body.id as string
  }

  it("follows the organization's events of the asked types, resumes a dropped connection without losing or repeating one, and stops on abort", async () => {
    const client = createClient({ baseUrl: `http://127.0.0.1:${proxy.port}`, token: tenant.token })
    const controller = new AbortController()
    const received: Array<CoreEvent> = []
    let opens = 0
    let ended: unknown
    const types: ReadonlyArray<EventType> = ["tenant.created"]
    const following = (async () => {
      try {
        for await (const event of client.events.stream({ types, signal: controller.signal, reconnectDelayMs: 100, maxReconnects: 100, onOpen: () => opens++ })) {
          received.push(event)
        }
      } catch (error) {
        ended = error
      }
    })()
    await eventually(() => opens, (count) => count === 1, { message: "the stream to open" })

    // Cut before any event: the stream resumes at the position its opening named (an `id:` without an event).
    await proxy.refuse()
    const first = await createTenant(tenant, "first")
    await createTenant(other, "foreign")
    await proxy.restore()
    await eventually(() => received.length, (count) => count >= 1, { message: "the first tenant.created, recorded before any event arrived", timeout: 20_000 })
    expect(opens).toBeGreaterThanOrEqual(2)

    // Cut the connection, record two more events while nothing can connect, then let it back.
    await proxy.refuse()
    const second = await createTenant(tenant, "second")
    const third = await createTenant(tenant, "third")
    await proxy.restore()
    await eventually(() => received.length, (count) => count >= 3, { message: "the two events recorded while the stream was down", timeout: 20_000 })
    expect(opens).toBeGreaterThanOrEqual(3)

    // One more on the reopened stream, then stop.
    const fourth = await createTenant(tenant, "fourth")
    await eventually(() => received.length, (count) => count >= 4, { message: "the event after the reconnection", timeout: 20_000 })
    controller.abort()
    await following
    expect(ended).toBeInstanceOf(CoreAbortError)

    expect(received.map((event) => [event.type, (event.data as { id: string }).id])).toEqual([
      ["tenant.created", first],
      ["tenant.created", second],
      ["tenant.created", third],
      ["tenant.created", fourth]
    ])
    expect(new Set(received.map((event) => event.id)).size).toBe(4)
    expect(received.every((event) => event.organizationId === tenant.orgId && event.platformId === tenant.platformId)).toBe(true)
    // What the stream carried is what the API reads.
    expect(await client.events.get(received[1]!.id)).toEqual(received[1])
  }, 90_000)

  it("resumes after a given lastEventId, and throws a refusal at once instead of reconnecting", async () => {
    const client = createClient({ baseUrl: server.base, token: tenant.token })
    const [newest, older] = (await client.events.list({ type: "tenant.created", limit: 2 })).data
    expect(older).toBeDefined()
    const controller = new AbortController()
    for await (const event of client.events.stream({ types: ["tenant.created"], lastEventId: older!.id, signal: controller.signal })) {
      expect(event).toEqual(newest)
      break
    }
    await expect(async () => {
      for await (const _ of client.events.stream({ types: ["nope.never" as EventType], maxReconnects: 0 })) break
    }).rejects.toThrow(BadRequestError)
  }, 30_000)
})
