import type { Events } from "@core/contracts"
import { CoreConfig, EventOutbox, Ids } from "@core/kernel"
import { eventually, TestDatabase } from "@core/kernel/testing"
import { ProvisioningMigrations } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Chunk, Effect, Fiber, Layer, ManagedRuntime, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EventFeed, EventsConfig, EventsMigrations, EventsRepo, EventsServices, Relay } from "../src/index.js"

/**
 * The in-process feed a host app that embeds the services subscribes to (no HTTP), on PGlite and
 * (with `CORE_TEST_DATABASE_URL`) PostgreSQL, through a `ManagedRuntime` as a host builds one:
 * `subscribe` calls back with exactly the committed events of the asked types and organization, in
 * dispatch order, goes on after a failing handler and stops at `unsubscribe`; `committed` is the
 * same as an Effect `Stream`, resumable after an event; disposing the runtime ends subscriptions.
 */
const layerOn = (driver: "pglite" | "pg") =>
  EventsServices.pipe(
    Layer.provideMerge(Layer.mergeAll(Ids.layer, EventsConfig.layer({ pollMs: 20 }))),
    Layer.provideMerge(CoreConfig.layer({ CORE_SECRET: "events-feed-test-secret-0123456789abcdef", NODE_ENV: "test" })),
    Layer.provideMerge(TestDatabase.layer([ProvisioningMigrations, EventsMigrations], { driver }))
  )

describe.each(TestDatabase.drivers)("the in-process event feed on %s", (driver) => {
  let runtime: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<ReturnType<typeof layerOn>>, never>
  let feed: EventFeed

  /** Record an event as a domain does, in its own transaction (rolled back with `fail`), then let the relay dispatch it. */
  const record = async (event: EventOutbox.NewEvent, fail = false) => {
    await runtime.runPromise(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* EventOutbox.record(event)
        if (fail) return yield* Effect.fail("the change failed" as const)
      })).pipe(Effect.ignore)
      yield* Effect.flatMap(Relay, (relay) => relay.drain())
    }))
  }
  const removed = (organizationId: string, id: string): EventOutbox.NewEvent =>
    ({ type: "member.removed", organizationId, data: { id, organizationId, userId: "usr_1", role: "member" } })
  const tested = (organizationId: string, message: string): EventOutbox.NewEvent =>
    ({ type: "webhook.test", organizationId, data: { endpointId: "whe_1", message } })
  /** The id of an organization's newest event: where a subscription made after it starts, without waiting for "now". */
  const newest = (organizationId: string) =>
    runtime.runPromise(Effect.flatMap(EventsRepo, (repo) => repo.list({ organizationId, limit: 1 }))).then((rows) => rows[0]!.id)
  const ids = (events: ReadonlyArray<Events.EventEnvelope>) => events.map((event) => (event.data as { id?: string; message?: string }).id ?? event.data.message)

  beforeAll(async () => {
    runtime = ManagedRuntime.make(layerOn(driver).pipe(Layer.orDie))
    feed = await runtime.runPromise(EventFeed)
  }, 60_000)
  afterAll(() => runtime?.dispose())

  it("calls back with the committed events of the asked types and organization, in order, past a failing handler, until unsubscribed", async () => {
    await record(tested("org_a", "before"))
    const start = await newest("org_a")
    const seen: Array<Events.EventEnvelope> = []
    const failures: Array<string> = []
    const unsubscribe = feed.subscribe(async (event) => {
      seen.push(event)
      if ((event.data as { id: string }).id === "mem_2") throw new Error("the handler broke")
    }, { types: ["member.removed"], organizationId: "org_a", after: start, pollMs: 20, onError: (error, event) => failures.push(`${event.id}: ${(error as Error).message}`) })

    await record(removed("org_a", "mem_1"))
    await record(removed("org_a", "mem_rolled_back"), true)
    await record(tested("org_a", "another type"))
    await record(removed("org_b", "mem_other_org"))
    await record(removed("org_a", "mem_2"))
    await record(removed("org_a", "mem_3"))
    await eventually(() => seen.length, (count) => count >= 3, { message: "three member.removed events of org_a" })
    expect(ids(seen)).toEqual(["mem_1", "mem_2", "mem_3"])
    expect(seen.every((event) => event.type === "member.removed" && event.organizationId === "org_a" && event.id.startsWith("evt_"))).toBe(true)
    expect(failures).toEqual([`${seen[1]!.id}: the handler broke`])

    await unsubscribe()
    await record(removed("org_a", "mem_after"))
    // Another subscriber sees the later event: the first one, unsubscribed, does not.
    const later = await runtime.runPromise(feed.committed({ organizationId: "org_a", types: ["member.removed"], after: seen[2]!.id }).pipe(Stream.take(1), Stream.runCollect))
    expect(ids(Chunk.toReadonlyArray(later))).toEqual(["mem_after"])
    expect(seen).toHaveLength(3)
  })

  it("is an Effect Stream of every organization's committed events, resumable after one, ended with the runtime", async () => {
    await record(tested("org_a", "marker"))
    const start = await newest("org_a")
    const first = runtime.runFork(feed.committed({ types: ["webhook.test"], after: start }).pipe(Stream.take(2), Stream.runCollect))
    await record(tested("org_a", "one"))
    await record(tested("org_b", "two"))
    const both = Chunk.toReadonlyArray(await runtime.runPromise(Fiber.join(first)))
    expect(both.map((event) => [event.organizationId, event.data.message])).toEqual([["org_a", "one"], ["org_b", "two"]])

    // After an event: the ones of the filter dispatched since (org_a's "four" is not org_b's).
    await record(tested("org_a", "four"))
    await record(tested("org_b", "five"))
    const resumed = await runtime.runPromise(feed.committed({ types: ["webhook.test"], organizationId: "org_b", after: both[1]!.id }).pipe(Stream.take(1), Stream.runCollect))
    expect(Chunk.toReadonlyArray(resumed).map((event) => event.data.message)).toEqual(["five"])

    // A subscription still open when the host disposes the runtime ends with it.
    const own = ManagedRuntime.make(layerOn(driver).pipe(Layer.orDie))
    const ownFeed = await own.runPromise(EventFeed)
    let calls = 0
    ownFeed.subscribe(() => void calls++)
    await own.dispose()
    expect(calls).toBe(0)
  })
})
