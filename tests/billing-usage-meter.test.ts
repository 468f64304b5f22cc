import { RequestUsage } from "@core/gateway"
import type { Middleware } from "@core/gateway"
import { PlatformSuspended } from "@core/kernel"
import { Effect, Exit, Scope } from "effect"
import { describe, expect, it } from "vitest"
import { eventually } from "./support/poll.js"

/**
 * The gateway's request meter (decision 0464): counted in memory by platform and tenant on the
 * request path (synchronously, behind the suspension step), flushed in batches by its own fiber,
 * with ids that keep a retried batch from counting twice.
 */

const frameOf = (pathname: string, principal: unknown): Middleware.Frame =>
  ({ requestId: "req", pathname, principal, responseHeaders: {}, upstreamHeaders: {}, after: [] }) as unknown as Middleware.Frame

const exchange = { method: "GET", url: "/", headers: {}, remoteAddress: undefined, now: 0 } as unknown as Middleware.Exchange
const user = (platformId: string | null) => ({ kind: "user", userId: "usr_1", platformId, platformStatus: "active" })
const apiKey = (platformId: string) => ({ kind: "apikey", keyId: "key_1", organizationId: "org_1", platformId, permissions: [], platformStatus: "active" })

describe("the gateway's request meter", () => {
  it("counts passed requests per platform and tenant, not the service key's nor refused ones, and flushes them as events", async () => {
    const sent: Array<ReadonlyArray<RequestUsage.RequestUsageEvent>> = []
    const scope = Effect.runSync(Scope.make())
    const usage = await Effect.runPromise(Scope.extend(RequestUsage.make({ sink: (events) => Effect.sync(() => void sent.push(events)), every: "1 hour", batchSize: 2 }), scope))
    const pass: Middleware.Guard = () => undefined
    const refuse: Middleware.Guard = () => Effect.fail(new PlatformSuspended({ message: "suspended", platformId: "plt_a" }))
    const counted = RequestUsage.counting(pass, usage)

    expect(counted(exchange, frameOf("/api/v1/platforms/plt_a", user("plt_a")))).toBeUndefined()
    counted(exchange, frameOf("/api/v1/platforms/plt_a/entities/ent_1/resources", user("plt_a")))
    counted(exchange, frameOf("/api/v1/platforms/plt_a/entities/ent_1", apiKey("plt_a")))
    counted(exchange, frameOf("/api/v1/billing/usage/current", apiKey("plt_b")))
    counted(exchange, frameOf("/api/v1/platforms", { kind: "service" }))
    counted(exchange, frameOf("/api/v1/iam/session", user(null)))
    counted(exchange, frameOf("/api/v1/platforms", undefined))
    const refused = RequestUsage.counting(refuse, usage)(exchange, frameOf("/api/v1/platforms/plt_a", user("plt_a")))
    expect(Exit.isFailure(await Effect.runPromiseExit(refused as Effect.Effect<unknown, unknown>))).toBe(true)
    // A guard that waits (an effect) is counted once it lets the request on.
    const waiting = RequestUsage.counting(() => Effect.succeed(undefined), usage)(exchange, frameOf("/api/v1/stacks", apiKey("plt_b")))
    await Effect.runPromise(waiting as Effect.Effect<unknown>)

    expect(sent).toEqual([])
    await Effect.runPromise(usage.flush)
    const events = sent.flat()
    expect(sent.map((batch) => batch.length)).toEqual([2, 1])
    expect(events.map(({ platformId, tenantId, quantity, meter }) => ({ platformId, tenantId, quantity, meter }))).toEqual([
      { platformId: "plt_a", tenantId: undefined, quantity: 1, meter: "requests" },
      { platformId: "plt_a", tenantId: "ent_1", quantity: 2, meter: "requests" },
      { platformId: "plt_b", tenantId: undefined, quantity: 2, meter: "requests" }
    ])
    expect(new Set(events.map((event) => event.id)).size).toBe(3)
    expect(events.every((event) => /^req_[0-9a-f]{16}_1_\d+$/.test(event.id) && !Number.isNaN(Date.parse(event.occurredAt)))).toBe(true)

    // Nothing counted since: a flush sends nothing.
    await Effect.runPromise(usage.flush)
    expect(sent).toHaveLength(2)
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  it("keeps a batch the sink refuses, with the same ids, for the next flush; the scope's end flushes", async () => {
    const sent: Array<RequestUsage.RequestUsageEvent> = []
    let failing = true
    const scope = Effect.runSync(Scope.make())
    const usage = await Effect.runPromise(Scope.extend(RequestUsage.make({
      sink: (events) => (failing ? Effect.fail("billing down") : Effect.sync(() => void sent.push(...events))),
      every: "1 hour"
    }), scope))
    usage.record("plt_a", undefined)
    await Effect.runPromise(usage.flush)
    expect(sent).toEqual([])
    failing = false
    usage.record("plt_a", "ent_9")
    await Effect.runPromise(usage.flush)
    expect(sent.map((event) => [event.id.split("_").slice(2).join("_"), event.tenantId, event.quantity])).toEqual([["1_0", undefined, 1], ["2_0", "ent_9", 1]])
    usage.record("plt_c", undefined)
    await Effect.runPromise(Scope.close(scope, Exit.void))
    expect(sent.at(-1)).toMatchObject({ platformId: "plt_c", quantity: 1 })
  })

  it("flushes on its own schedule, off the request path", async () => {
    const sent: Array<RequestUsage.RequestUsageEvent> = []
    const scope = Effect.runSync(Scope.make())
    const usage = await Effect.runPromise(Scope.extend(RequestUsage.make({ sink: (events) => Effect.sync(() => void sent.push(...events)), every: "20 millis" }), scope))
    usage.record("plt_a", undefined)
    await eventually(() => sent.length, (count) => count > 0, { message: "the scheduled flush", timeout: 5_000, interval: 10 })
    expect(sent).toMatchObject([{ platformId: "plt_a", quantity: 1 }])
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  it("reads the tenant from an entity path only", () => {
    expect(RequestUsage.tenantOf("/api/v1/platforms/plt_a/entities/ent_1")).toBe("ent_1")
    expect(RequestUsage.tenantOf("/api/v1/platforms/plt_a/entities/ent_1/resources")).toBe("ent_1")
    expect(RequestUsage.tenantOf("/api/v1/platforms/plt_a/entities")).toBeUndefined()
    expect(RequestUsage.tenantOf("/api/v1/billing/usage/current")).toBeUndefined()
  })
})
