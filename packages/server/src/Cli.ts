import { ConfigError, type Configuration, loadConfig, Logging } from "@core/kernel"
import { Cause, Effect, Exit, Option } from "effect"
import * as Args from "./Args.js"
import { CommandFailed, failed, usage } from "./Failure.js"
import * as Maintenance from "./Maintenance.js"
import { bootstrap } from "./OperatorBootstrap.js"
import * as Serve from "./Serve.js"
import { start } from "./Start.js"
import { version } from "./Version.js"

const configuration: Effect.Effect<Configuration, CommandFailed> = Effect.try({
  try: () => loadConfig(process.env),
  catch: (error) => failed(error instanceof ConfigError ? error.message : `Invalid configuration: ${String(error)}`)
})

const print = (text: string): Effect.Effect<void> =>
  Effect.sync(() => {
    process.stdout.write(text.endsWith("\n") ? text : `${text}\n`)
  })

const withConfig = (run: (config: Configuration) => Effect.Effect<void, CommandFailed>) =>
  Effect.flatMap(configuration, (config) =>
    run(config).pipe(Effect.provide(Logging.layer({ level: config.logLevel }))))

/** Run one parsed command line. */
export const run = (command: Args.Command | Args.UsageError): Effect.Effect<void, CommandFailed> => {
  if (command instanceof Args.UsageError) return Effect.fail(usage(command.message))
  switch (command._tag) {
    case "Help":
      return print(Args.usageOf(command.topic))
    case "Version":
      return print(version)
    case "Start":
      return withConfig(start)
    case "Migrate":
      return withConfig(Maintenance.migrate)
    case "Backup":
      return withConfig((config) => Maintenance.backup(config, command.file))
    case "Restore":
      return withConfig((config) => Maintenance.restore(config, command.file))
    case "Serve":
      return withConfig((config) => Serve.serve(config, command.service, command.port))
    case "Bootstrap":
      return withConfig((config) => Effect.flatMap(bootstrap(config, command.email), print))
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
