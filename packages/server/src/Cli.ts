import { type Configuration, Logging } from "@core/kernel"
import { Cause, Context, Effect, Exit, Option } from "effect"
import * as Args from "./Args.js"
import * as DotEnv from "./DotEnv.js"
import { CommandFailed, failed, usage } from "./Failure.js"
import * as Maintenance from "./Maintenance.js"
import { bootstrap } from "./OperatorBootstrap.js"
import * as Serve from "./Serve.js"
import * as Settings from "./Settings.js"
import { start } from "./Start.js"
import * as Telemetry from "./Telemetry.js"
import { TelemetryConfig } from "./TelemetryConfig.js"
import * as Terminal from "./Terminal.js"
import { version } from "./Version.js"
import * as WorkerCommand from "./WorkerCommand.js"

/**
 * The whole configuration, the kernel's and every domain's, read once from `process.env` after
 * `.env` in the working directory filled in what the environment does not set (the environment
 * wins), with the command line's `overrides` (`start --port`) over both.
 */
const configuration = (overrides: Readonly<Record<string, string>>): Effect.Effect<Settings.Settings, CommandFailed> =>
  Effect.suspend(() => {
    const loaded = DotEnv.load(process.env)
    if (loaded instanceof DotEnv.DotEnvError) return Effect.fail(failed(loaded.message))
    return Settings.load({ ...process.env, ...overrides }).pipe(Effect.mapError((error) => failed(error.message)))
  })

const print = (text: string): Effect.Effect<void> =>
  Effect.sync(() => {
    process.stdout.write(text.endsWith("\n") ? text : `${text}\n`)
  })

/**
 * Run a command with the configuration; a bad value anywhere stops it first (exit 1, naming the
 * variable). A process that serves (`telemetryAs`: its default `OTEL_SERVICE_NAME`) exports its spans
 * when an OTLP endpoint is configured, and flushes them as it stops.
 */
const withConfig = (
  run: (config: Configuration) => Effect.Effect<void, CommandFailed, Settings.DomainSettings>,
  overrides: Readonly<Record<string, string>> = {},
  telemetryAs?: string
) =>
  Effect.flatMap(configuration(overrides), ({ config, domains }) => {
    const telemetry = telemetryAs === undefined ? undefined : Telemetry.layer(Context.get(domains, TelemetryConfig), telemetryAs)
    const traced = telemetry === undefined ? run(config) : Effect.provide(run(config), telemetry)
    return traced.pipe(Effect.provide(domains), Effect.provide(Logging.layer(Terminal.logging(config, Terminal.forProcess()))))
  })

/** Run one parsed command line. */
export const run = (command: Args.Command | Args.UsageError): Effect.Effect<void, CommandFailed> => {
  if (command instanceof Args.UsageError) return Effect.fail(usage(command.message))
  switch (command._tag) {
    case "Help":
      return print(Args.usageOf(command.topic))
    case "Version":
      return print(version)
    case "Start":
      return withConfig(start, command.port === undefined ? {} : { PORT: String(command.port) }, "core-server")
    case "Migrate":
      return withConfig(Maintenance.migrate)
    case "Backup":
      return withConfig((config) => Maintenance.backup(config, command.file))
    case "Restore":
      return withConfig((config) => Maintenance.restore(config, command.file, { yes: command.yes }))
    case "Serve":
      return withConfig((config) => Serve.serve(config, command.service, command.port), {}, `core-${command.service.toLowerCase()}`)
    case "Bootstrap":
      return withConfig((config) => Effect.flatMap(bootstrap(config, command.email), print))
    case "Worker":
      return withConfig((config) => WorkerCommand.worker(config, command.concurrency), {}, "core-worker")
  }
}

/** The exit code of a finished command: 0, the `CommandFailed` code, or 1 for anything else. */
export const exitCode = (exit: Exit.Exit<unknown, unknown>): number => {
  if (Exit.isSuccess(exit) || Cause.isInterruptedOnly(exit.cause)) return 0
  const failure = Cause.failureOption(exit.cause)
  return Option.isSome(failure) && failure.value instanceof CommandFailed ? failure.value.exitCode : 1
}

/** What to print on stderr when a command fails. */
export const report = (exit: Exit.Exit<unknown, unknown>): string | undefined => {
  if (Exit.isSuccess(exit) || Cause.isInterruptedOnly(exit.cause)) return undefined
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure) && failure.value instanceof CommandFailed) return `core-server: ${failure.value.message}`
  return `core-server: unexpected failure\n${Logging.redactText(Cause.pretty(exit.cause))}`
}
