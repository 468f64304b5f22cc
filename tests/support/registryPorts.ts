import { FeatureRecordsLive, Features, Platforms, ResourceRecordsLive } from "@core/registry"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, type ManagedRuntime } from "effect"

/**
 * The registry's records over its real tables: provisioning's `FeatureRecords` port as the server
 * binds it, the registry's `ResourceRecords` (what its resource jobs move), `Features` and
 * `Platforms`; they need the `SqlClient` and `Ids`.
 */
export const RegistryPorts = Layer.mergeAll(ResourceRecordsLive, FeatureRecordsLive).pipe(
  Layer.provideMerge(Features.DefaultWithoutDependencies),
  Layer.provideMerge(Platforms.Default)
)

/**
 * `run` and `query` over a runtime made later (in `beforeAll`): an effect run with its services, and
 * SQL text run on its `SqlClient`.
 */
export const runtimeTools = <R>(runtime: () => ManagedRuntime.ManagedRuntime<R, unknown>) => {
  const run = <A>(effect: Effect.Effect<A, unknown, any>) => runtime().runPromise(effect as Effect.Effect<A, unknown, never>)
  const query = <T extends object = Record<string, unknown>>(text: string, params: ReadonlyArray<unknown> = []) =>
    run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<T>(text, params as Array<unknown>)))
  return { run, query }
}
