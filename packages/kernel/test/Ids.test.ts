import { ID_PREFIXES, idSchema, parseId, PlatformId, UserId } from "@core/contracts"
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import * as Ids from "../src/Ids.js"

describe("Ids", () => {
  it.effect("makes ids that match the contracts' schema of every prefix", () =>
    Effect.gen(function*() {
      for (const prefix of ID_PREFIXES) {
        const id = yield* Ids.make(prefix)
        expect(id).toMatch(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`))
        expect(idSchema(prefix).safeParse(id).success).toBe(true)
      }
    }).pipe(Effect.provide(Ids.layer)))

  it.effect("carries the Clock's time and sorts by it", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1_700_000_000_000)
      const first = yield* Ids.make("plt")
      yield* TestClock.adjust("1 millis")
      const second = yield* Ids.make("plt")
      expect(parseId(first)).toEqual({ prefix: "plt", timeMillis: 1_700_000_000_000 })
      expect(parseId(second)?.timeMillis).toBe(1_700_000_000_001)
      expect(first < second).toBe(true)
    }).pipe(Effect.provide(Ids.layer)))

  it.effect("is strictly increasing within one millisecond", () =>
    Effect.gen(function*() {
      const ids = yield* Effect.forEach(Array.from({ length: 500 }), () => Ids.make("job"))
      expect(new Set(ids).size).toBe(500)
      expect([...ids].sort()).toEqual(ids)
      expect(ids.every((id) => parseId(id)?.timeMillis === 0)).toBe(true)
    }).pipe(Effect.provide(Ids.layer)))

  it.effect("is random across generators", () =>
    Effect.gen(function*() {
      const a = yield* Ids.make("usr").pipe(Effect.provide(Ids.layer))
      const b = yield* Ids.make("usr").pipe(Effect.provide(Ids.layer))
      expect(a).not.toBe(b)
    }))

  it.effect("is deterministic in the test layer", () =>
    Effect.gen(function*() {
      expect(yield* Ids.make("usr")).toBe("usr_00000000000000000000000001")
      expect(yield* Ids.make("usr")).toBe("usr_00000000000000000000000002")
      expect(yield* Ids.make("org")).toBe("org_00000000000000000000000001")
      yield* TestClock.setTime(Date.UTC(2026, 0, 1))
      const later = yield* Ids.make("usr")
      expect(later).toBe("usr_01KDVDNA000000000000000003")
      expect(parseId(later)?.timeMillis).toBe(Date.UTC(2026, 0, 1))
      expect(UserId.safeParse(later).success).toBe(true)
      expect(PlatformId.safeParse(later).success).toBe(false)
    }).pipe(Effect.provide(Ids.layerTest)))
})
