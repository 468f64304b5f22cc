import { type Configuration, CoreConfig } from "@core/kernel"
import { WorkerConfig } from "@core/provisioning"
import { Effect, Layer } from "effect"
import * as Os from "node:os"
import { type CommandFailed, failed } from "./Failure.js"
import * as MetricsPort from "./MetricsPort.js"
import * as Migrations from "./Migrations.js"
import { ServerConfig } from "./ServerConfig.js"
import * as Services from "./Services.js"
import type { DomainSettings } from "./Settings.js"
import * as Storage from "./Storage.js"
import * as Terminal from "./Terminal.js"

/**
 * `core-server worker [--concurrency <n>]` (decision 0304): the provisioning service's job worker
 * alone — the same job types as in `core-server start` — without HTTP, on the PostgreSQL database
 * of `DATABASE_URL`. It migrates first (the kernel's advisory lock lets several start together),
 * logs `worker started`, and runs until SIGTERM/SIGINT: then it claims nothing more, lets its
 * running jobs finish for up to `CORE_SHUTDOWN_GRACE_MS` and gives back the rest before the
 * database closes.
 */
export const worker = (
  config: Configuration,
  concurrency: number | undefined
): Effect.Effect<void, CommandFailed, DomainSettings> => {
  if (config.databaseUrl === undefined) {
    return Effect.fail(
      failed("worker needs DATABASE_URL (PostgreSQL): the embedded database belongs to `core-server start`, whose own worker runs its jobs")
    )
  }
  const definition = Services.find("provisioning")
  if (definition === undefined) return Effect.fail(failed("the provisioning service is not part of this build"))
  return Effect.scoped(
    Effect.gen(function*() {
      const database = yield* Storage.open(config)
      yield* Migrations.runAll(config).pipe(Effect.provide(database))
      const settings = yield* WorkerConfig
      // Named after its host and process in the jobs it claims (`locked_by`), so an operator can
      // tell which worker ran a job (decision 0554).
      const workerId = `worker-${Os.hostname()}-${process.pid}`
      const effective = { ...settings, workerId, ...(concurrency === undefined ? {} : { concurrency }) }
      if (effective.concurrency === 0) {
        return yield* Effect.fail(failed("CORE_WORKER_CONCURRENCY=0 leaves this worker nothing to do: give --concurrency <n> (1 to 256)"))
      }
      yield* Layer.build(definition.layer).pipe(
        Effect.provide(database),
        Effect.provideService(CoreConfig, config),
        Effect.provideService(WorkerConfig, effective),
        Effect.orDie
      )
      // The worker has no HTTP port: its metrics are served on `CORE_METRICS_PORT` alone (decision 0723).
      yield* MetricsPort.serve((yield* ServerConfig).metricsPort)
      yield* Effect.logInfo("worker started").pipe(
        Effect.annotateLogs({ pid: process.pid, workerId, concurrency: effective.concurrency, leaseMs: effective.leaseMs })
      )
      const screen = yield* Terminal.Terminal
      if (screen.interactive) screen.line(`Worker ${workerId} is running ${effective.concurrency} jobs at a time (Ctrl+C stops it).`)
      return yield* Effect.never.pipe(Effect.onInterrupt(() => Effect.logInfo("shutting down")))
    })
  ).pipe(Effect.onInterrupt(() => Effect.logInfo("stopped")))
}
