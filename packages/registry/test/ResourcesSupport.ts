import { CoreConfig, Ids } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { Layer } from "effect"
import { Entities, Platforms, RegistryMigrations, ResourcesLive } from "../src/index.js"
import { TestCallers } from "./Callers.js"

/** The root secret of these tests (the secrets' key is derived from it). */
export const TEST_SECRET = "registry-resources-secret-0123456789abcdef"

/** The registry with its resources, DNS records and secrets over a test database on `driver`. */
export const makeResourcesLayer = <A = never>(driver: "pglite" | "pg", extra?: Layer.Layer<A>) =>
  Layer.mergeAll(Entities.DefaultWithoutDependencies, ResourcesLive).pipe(
    Layer.provideMerge(Platforms.Default),
    Layer.provideMerge(Layer.mergeAll(TestCallers, Ids.layer, CoreConfig.layer({ NODE_ENV: "test", CORE_SECRET: TEST_SECRET }), extra ?? Layer.empty)),
    Layer.provideMerge(TestDatabase.layer([RegistryMigrations], { driver }))
  )

/** A valid resource body; `edgeName` must be unique among live resources. */
export const resourceBody = (edgeName: string, extra: Record<string, unknown> = {}) => ({
  stackId: "stk_any-stack-id",
  resourceType: "worker",
  serviceName: "api",
  environment: "prod",
  edgeName,
  ...extra
})
