import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type JobHandler, JobHandlers } from "../src/index.js"

const handler = (name: string): JobHandler => ({ run: () => Effect.succeed({ name }) })

describe("JobHandlers.merge", () => {
  it.effect("makes one registry of several, the later handler of a type winning", () =>
    Effect.gen(function*() {
      const merged = yield* JobHandlers.pipe(
        Effect.provide(JobHandlers.merge(JobHandlers.layer({ a: handler("a1"), b: handler("b") }), JobHandlers.layer({ a: handler("a2"), c: handler("c") })))
      )
      expect([...merged.keys()].sort()).toEqual(["a", "b", "c"])
      expect(yield* merged.get("a")!.run({} as never, {} as never)).toEqual({ name: "a2" })
    }))
})
