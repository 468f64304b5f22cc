import { Ids } from "@core/kernel"
import { makeHttpHarness, type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Platforms, PlatformStatusSink, RegistryMigrations, RegistryRouter } from "../src/index.js"
import { TestCallers } from "./Callers.js"

/** What the registry publishes to identity's platform status, recorded by a sink of the same Tag. */
const published: Array<[string, string, string]> = []
const RecordingSink = Layer.succeed(PlatformStatusSink, {
  publish: (platformId, status, updatedBy) => Effect.sync(() => void published.push([platformId, status, updatedBy]))
})

const TestLayer = Platforms.Default.pipe(
  Layer.provide(RecordingSink),
  Layer.provideMerge(Layer.mergeAll(TestCallers, Ids.layer)),
  Layer.provideMerge(TestDatabase.layer([RegistryMigrations]))
)

describe("the registry's platform status, published", () => {
  let h: HttpHarness<Layer.Layer.Success<typeof TestLayer>>
  beforeAll(async () => {
    h = await makeHttpHarness(RegistryRouter, TestLayer)
  })
  afterAll(() => h.dispose())

  const act = (platform: string, action: string, token = "static") =>
    h.fetch(`/${platform}/${action}`, { method: "POST", token, json: {} }).then((response) => response.status)

  it("publishes suspended on suspend and delete, active on restore; nothing for a cancel or a refused change", async () => {
    const platform = (await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "S", slug: "s", organizationId: "org_a" })))).id
    expect(await act(platform, "cancel", "usr_owner")).toBe(200)
    expect(published).toEqual([])
    const second = (await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "T", slug: "t", organizationId: "org_t" })))).id
    expect(await act(second, "suspend", "usr_operator")).toBe(200)
    expect(await act(second, "suspend")).toBe(409)
    expect(await act(second, "restore")).toBe(200)
    expect(await act(second, "suspend")).toBe(200)
    // Cancelled while suspended: still refused, nothing new to publish; then deleted: still refused.
    expect(await act(second, "cancel")).toBe(200)
    expect(await act(second, "delete")).toBe(200)
    expect(published).toEqual([
      [second, "suspended", "usr_operator"],
      [second, "active", "service"],
      [second, "suspended", "service"]
    ])
    const third = (await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "U", slug: "u" })))).id
    expect((await h.fetch(`/${third}`, { method: "DELETE", token: "static" })).status).toBe(200)
    expect(published.at(-1)).toEqual([third, "suspended", "service"])
  })
})
