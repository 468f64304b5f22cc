import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { CoreConfig, Crypto } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { EdgeProviderLocal } from "../src/adapters/EdgeProviderLocal.js"
import * as LocalEdge from "../src/adapters/LocalEdge.js"
import { ProvisioningMigrations } from "../src/migrations/index.js"
import { EdgeProvider } from "../src/ports/EdgeProvider.js"

/** The local edge's worker secrets (decision 0490): encrypted at rest, one file per name, readable by a runtime. */
const root = await Fs.mkdtemp(Path.join(Os.tmpdir(), "core-edge-secrets-"))
const SECRET = "local-edge-secrets-test-0123456789abcdef"
const config = CoreConfig.layer({ NODE_ENV: "test", PORT: "0", CORE_SECRET: SECRET })
const live = EdgeProviderLocal.layer({ root, port: 8787 }).pipe(Layer.provideMerge(Layer.merge(TestDatabase.layer([ProvisioningMigrations]), config)))

describe("EdgeProviderLocal worker secrets", () => {
  layer(live)((it) => {
    it.effect("stores each secret encrypted (never the value in the clear), replaces it, and opens them for a runtime", () =>
      Effect.gen(function*() {
        const edge = yield* EdgeProvider
        yield* edge.setWorkerSecret({ platformId: "plt_a", edgeName: "ada-worker", name: "API_KEY", value: Redacted.make("s3cret-one") })
        yield* edge.setWorkerSecret({ platformId: "plt_a", edgeName: "ada-worker", name: "DB_URL", value: Redacted.make("postgres://x") })
        yield* edge.setWorkerSecret({ platformId: "plt_a", edgeName: "ada-worker", name: "API_KEY", value: Redacted.make("s3cret-two") })
        const dir = LocalEdge.workerSecretsDir(root, "ada-worker")
        const files = yield* Effect.promise(() => Fs.readdir(dir))
        expect(files.sort()).toEqual(["API_KEY", "DB_URL"])
        const sealed = yield* Effect.promise(() => Fs.readFile(Path.join(dir, "API_KEY"), "utf8"))
        expect(sealed).toMatch(/^enc\.v1\./)
        expect(sealed).not.toContain("s3cret")
        expect(((yield* Effect.promise(() => Fs.stat(Path.join(dir, "API_KEY")))).mode & 0o777)).toBe(0o600)
        const key = Crypto.deriveKey(SECRET, LocalEdge.WORKER_SECRETS_KEY_PURPOSE)
        expect(yield* Effect.promise(() => LocalEdge.readWorkerSecrets(root, "ada-worker", key))).toEqual({ API_KEY: "s3cret-two", DB_URL: "postgres://x" })
        expect(yield* Effect.promise(() => LocalEdge.readWorkerSecrets(root, "nobody-worker", key))).toEqual({})
      }))

    it.effect("refuses another platform's worker and a name that is not ^[A-Z_][A-Z0-9_]*$", () =>
      Effect.gen(function*() {
        const edge = yield* EdgeProvider
        yield* edge.createResource({ platformId: "plt_b", resourceType: "worker", edgeName: "bob-worker", environment: "prod", config: {} })
        const other = yield* Effect.flip(edge.setWorkerSecret({ platformId: "plt_a", edgeName: "bob-worker", name: "A", value: Redacted.make("x") }))
        expect(other.message).toBe("The worker bob-worker belongs to another platform")
        const bad = yield* Effect.flip(edge.setWorkerSecret({ platformId: "plt_b", edgeName: "bob-worker", name: "../ESCAPE", value: Redacted.make("x") }))
        expect(bad.message).toContain("must match")
        expect(yield* Effect.promise(() => Fs.readdir(LocalEdge.workerSecretsDir(root, "bob-worker")).catch(() => []))).toEqual([])
      }))
  })
})
