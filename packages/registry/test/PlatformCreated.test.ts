import { Ids } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { PlatformCreated, Platforms, RegistryMigrations } from "../src/index.js"
import { TestCallers } from "./Callers.js"

const layerWith = (listener: Layer.Layer<PlatformCreated>) =>
  Platforms.Default.pipe(
    Layer.provide(listener),
    Layer.provideMerge(Layer.mergeAll(TestCallers, Ids.layer)),
    Layer.provideMerge(TestDatabase.layer([RegistryMigrations]))
  )

// `it.scopedLive`: the real clock, as the database it writes to (it.effect would run on the TestClock).
/** `PlatformCreated`: told once per platform created, after it is written; a failing listener never fails the creation. */
describe("the registry's PlatformCreated listener", () => {
  it.scopedLive("is told of each created platform (not of a refused one)", () => {
    const told: Array<[string, string]> = []
    const recording = Layer.succeed(PlatformCreated, { created: (platform) => Effect.sync(() => void told.push([platform.id, platform.slug])) })
    return Effect.gen(function*() {
      const platforms = yield* Platforms
      const made = yield* platforms.create({ name: "A", slug: "told-a", organizationId: "org_told" })
      expect(told).toEqual([[made.id, "told-a"]])
      expect(Exit.isFailure(yield* Effect.exit(platforms.create({ name: "B", slug: "told-a" })))).toBe(true)
      expect(told).toHaveLength(1)
    }).pipe(Effect.provide(layerWith(recording)))
  }, 60_000)

  it.scopedLive("creates the platform when the listener fails: the failure is only logged", () =>
    Effect.gen(function*() {
      const platforms = yield* Platforms
      const made = yield* platforms.create({ name: "C", slug: "told-c" })
      expect((yield* platforms.get(made.id)).slug).toBe("told-c")
    }).pipe(Effect.provide(layerWith(Layer.succeed(PlatformCreated, { created: () => Effect.die(new Error("billing is down")) })))), 60_000)
})
