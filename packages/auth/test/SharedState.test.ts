import { Ids } from "@core/kernel"
import { makeHttpHarness, TestDatabase } from "@core/kernel/testing"
import { Effect, Layer, ManagedRuntime } from "effect"
import * as net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AccountsLive } from "../src/accounts/Http.js"
import { Access } from "../src/authorization/Access.js"
import { AuthorizationLive } from "../src/authorization/Http.js"
import { Grants } from "../src/authorization/Grants.js"
import { DeviceAuthorization } from "../src/device/DeviceAuthorization.js"
import { DeviceAuthorizationLive } from "../src/device/Http.js"
import * as OutboxMailer from "../src/mail/OutboxMailer.js"
import { IamMigrations } from "../src/migrations/index.js"
import { addMember, app, configLayer, freshEmail, type Harness, PASSWORD, seedOrganization, signUp } from "./AccountsSupport.js"

/**
 * Decision 0192: two identity instances (two runtimes, as two processes would be) over one database
 * and one Redis share the limiters' counts and the caches' invalidations; a Redis outage leaves each
 * answering from its own memory, never a 500. Needs `REDIS_URL` (e.g. redis://127.0.0.1:6379).
 */
const REDIS_URL = process.env.REDIS_URL || undefined

/** A TCP relay to Redis that the test can cut, as an outage would. */
const relayTo = (target: URL) =>
  new Promise<{ url: string; cut: () => Promise<void> }>((resolve) => {
    const sockets = new Set<net.Socket>()
    const server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 6379), target.hostname)
      for (const socket of [client, upstream]) {
        sockets.add(socket)
        socket.on("error", () => undefined)
        socket.on("close", () => sockets.delete(socket))
      }
      client.pipe(upstream).pipe(client)
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      resolve({
        url: `redis://127.0.0.1:${port}`,
        cut: () =>
          new Promise((done) => {
            server.close(() => done())
            for (const socket of sockets) socket.destroy()
          })
      })
    })
  })

describe.skipIf(REDIS_URL === undefined)("identity's limits and caches shared through Redis", () => {
  let database: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<ReturnType<typeof TestDatabase.layer>>, unknown>
  const instances: Array<Harness> = []
  type Instance = Awaited<ReturnType<typeof instance>>

  /** One identity instance over the shared database, with Redis at `url`. */
  const instance = async (url: string) => {
    const shared = Layer.succeedContext(await database.runtime().then((runtime) => runtime.context))
    const stack = DeviceAuthorizationLive.pipe(
      Layer.provideMerge(AccountsLive),
      Layer.provideMerge(OutboxMailer.layer),
      Layer.provideMerge(AuthorizationLive),
      Layer.provideMerge(Layer.mergeAll(shared, configLayer({ CORE_TRUST_PROXY: "1", REDIS_URL: url }), Ids.layer)),
      Layer.orDie
    )
    const harness = await makeHttpHarness(app, stack, { baseUrl: "http://iam.test" })
    const fetch = (path: string, init: Parameters<Harness["fetch"]>[1] & { cookie?: string } = {}) => {
      const { cookie, ...rest } = init
      const headers = new Headers(rest.headers)
      if (cookie !== undefined) headers.set("cookie", `core.session_token=${cookie}`)
      return harness.fetch(path, { ...rest, headers, method: rest.method ?? (rest.json === undefined ? "GET" : "POST") })
    }
    const h = { ...harness, fetch }
    instances.push(h)
    return h
  }

  const signIn = (h: Harness, email: string, password: string, ip: string) =>
    h.fetch("/api/auth/sign-in/email", { json: { email, password }, headers: { "x-forwarded-for": ip } })

  let one: Instance
  let two: Instance
  beforeAll(async () => {
    database = ManagedRuntime.make(TestDatabase.layer([IamMigrations]))
    one = await instance(REDIS_URL!)
    two = await instance(REDIS_URL!)
  })
  afterAll(async () => {
    for (const h of instances) await h.dispose()
    await database.dispose()
  })

  it("counts failed sign-ins together: 3 on one and 2 on the other refuse the 6th on either", async () => {
    const { email } = await signUp(one)
    const ip = `2001:db8::${Math.floor(Math.random() * 0xffff).toString(16)}:1`
    for (const h of [one, two, one, two, one]) expect((await signIn(h, email, "wrong password!", ip)).status).toBe(401)
    const refused = await signIn(two, email, PASSWORD, ip)
    expect(refused.status).toBe(429)
    expect(refused.headers.get("ratelimit-limit")).toBe("5")
    expect((await signIn(one, email, PASSWORD, ip)).status).toBe(429)
  })

  it("a session revoked through one instance is refused by the other at once, though the other had it cached", async () => {
    const { token } = await signUp(one)
    expect((await two.fetch("/api/core/session", { token })).status).toBe(200)
    expect((await one.fetch("/api/auth/sign-out", { cookie: token, json: {} })).status).toBe(200)
    expect((await two.fetch("/api/core/session", { token })).status).toBe(401)
  })

  it("a permission denied through one instance is gone in the other at once, though the other had it cached", async () => {
    const owner = await signUp(one)
    const member = await signUp(one)
    const org = await seedOrganization(one)
    await addMember(one, org.id, owner.user.id, "owner")
    await addMember(one, org.id, member.user.id, "member")
    const held = (h: Harness) => h.run(Effect.flatMap(Access, (access) => access.effectivePermissions(member.user.id, org.id)))
    expect(await held(two)).toContain("platforms:read")
    await one.run(Effect.flatMap(Grants, (grants) =>
      grants.create({ kind: "service" }, {
        userId: member.user.id,
        orgId: org.id,
        permission: "platforms:read",
        granted: false,
        grantedBy: owner.user.id
      })))
    expect(await held(two)).not.toContain("platforms:read")
  })

  it("counts wrong user codes together: 10 wrong in one session across both instances refuse the 11th", async () => {
    const start = (h: Instance) => h.run(Effect.flatMap(DeviceAuthorization, (device) => device.start({ clientId: "core-cli", scope: null })))
    const sessionId = `ses_shared_${freshEmail()}`
    const lookup = (h: Instance, userCode: string) =>
      h.run(Effect.either(Effect.flatMap(DeviceAuthorization, (device) => device.lookup(userCode, { ip: "192.0.2.44", sessionId }))))
    for (let i = 0; i < 10; i++) expect((await lookup(i % 2 === 0 ? one : two, "BBBB-BBBB"))._tag).toBe("Left")
    const { userCode } = await start(one)
    const refused = await lookup(two, userCode)
    expect(refused._tag === "Left" && refused.left.error).toBe("slow_down")
  })

  it("a Redis outage leaves each instance answering from its own memory: no 500, limits per process", async () => {
    const relay = await relayTo(new URL(REDIS_URL!))
    const cut = await instance(relay.url)
    const { email, token } = await signUp(cut)
    const ip = `2001:db8::${Math.floor(Math.random() * 0xffff).toString(16)}:2`
    for (const h of [one, one, one, one, cut]) expect((await signIn(h, email, "wrong password!", ip)).status).toBe(401)
    expect((await signIn(cut, email, PASSWORD, ip)).status).toBe(429)
    await relay.cut()
    const statuses: Array<number> = []
    for (let i = 0; i < 6; i++) statuses.push((await signIn(cut, email, "wrong password!", ip)).status)
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429])
    expect((await signIn(cut, email, PASSWORD, "192.0.2.56")).status).toBe(200)
    expect((await cut.fetch("/api/core/session", { token })).status).toBe(200)
    expect((await cut.fetch("/api/auth/sign-out", { cookie: token, json: {} })).status).toBe(200)
    expect((await cut.fetch("/api/core/session", { token })).status).toBe(401)
    expect(cut.logs.join("\n")).toContain("identity: Redis failed")
  }, 30_000)
})

