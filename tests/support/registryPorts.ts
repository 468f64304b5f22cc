import { FeatureActivationsLive, FeatureRecordsLive, Features, Platforms, ResourceRecordsLive } from "@core/registry"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, type ManagedRuntime } from "effect"

/**
 * Provisioning's registry ports over the registry's real tables, as the server binds them
 * (`FeatureActivations`, `FeatureRecords`, `ResourceRecords`), with `Features` and `Platforms`;
 * they need the `SqlClient` and `Ids`.
 */
export const RegistryPorts = Layer.mergeAll(FeatureActivationsLive, ResourceRecordsLive, FeatureRecordsLive).pipe(
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
