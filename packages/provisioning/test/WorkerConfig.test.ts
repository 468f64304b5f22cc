import { Config as KernelConfig } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { JobHandlers } from "../src/JobHandlers.js"
import * as Worker from "../src/Worker.js"
import { WorkerConfig } from "../src/WorkerConfig.js"

const read = (env: Record<string, string>) => Effect.withConfigProvider(WorkerConfig.config, KernelConfig.provider(env))

/** A database that fails the test if anything touches it. */
const untouchable = new Proxy({}, {
  get: (_target, name) => {
    throw new Error(`the database was used (${String(name)})`)
  },
  apply: () => {
    throw new Error("the database was queried")
  }
}) as unknown as SqlClient.SqlClient

describe("WorkerConfig: CORE_WORKER_CONCURRENCY=0 (decision 0554)", () => {
  it.effect("reads 0 to 256, and refuses what is outside", () =>
    Effect.gen(function*() {
      expect((yield* read({ CORE_WORKER_CONCURRENCY: "0" })).concurrency).toBe(0)
      expect((yield* read({ CORE_WORKER_CONCURRENCY: "256" })).concurrency).toBe(256)
      expect((yield* read({})).concurrency).toBe(2)
      const refused = yield* Effect.flip(read({ CORE_WORKER_CONCURRENCY: "257" }))
      expect(KernelConfig.issuesOf(refused)).toEqual([
        { variable: "CORE_WORKER_CONCURRENCY", message: expect.stringContaining("must be a whole number from 0 to 256") }
      ])
    }))

  it.scoped("with 0, the process runs no worker: nothing touches the database", () =>
    Effect.gen(function*() {
      yield* Layer.build(Worker.layerConfig()).pipe(
        Effect.provide(WorkerConfig.layer({ concurrency: 0 })),
        Effect.provideService(SqlClient.SqlClient, untouchable),
        Effect.provideService(JobHandlers, new Map())
      )
    }))

})
