import { CliError, ExitCode, usageError } from "./errors.js"
import { commands, findCommand, unknownCommand } from "./registry.js"
import { commandTrace } from "./trace.js"
import { createUi, type Output, type Ui } from "./ui.js"
import { version } from "./version.js"

/** The process around a run: its streams and environment. */
export interface Io {
  readonly stdout: Output
  readonly stderr: Output
  readonly env: Readonly<Record<string, string | undefined>>
  /** Where prompts read answers; without it (or when it is not a terminal) nothing is asked. */
  readonly stdin?: { readonly isTTY?: boolean }
}

interface Invocation {
  readonly help: boolean
  readonly version: boolean
  readonly json: boolean
  readonly trace: boolean
  readonly command: string | undefined
  readonly rest: ReadonlyArray<string>
  readonly problem: CliError | undefined
}

/**
 * Splits argv into the global options and the command with its own arguments. `--help`,
 * `--json` and `--trace` count anywhere before `--`; `--version` and unknown options only before the command
 * (after it they belong to the command).
 */
const parseInvocation = (argv: ReadonlyArray<string>): Invocation => {
  let help = false, showVersion = false, json = false, trace = false
  let command: string | undefined
  let problem: CliError | undefined
  const rest: Array<string> = []
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]
    if (arg === "--") {
      rest.push(...argv.slice(index + 1))
      break
    }
    if (arg === "-h" || arg === "--help") help = true
    else if (arg === "--json") json = true
    else if (arg === "--trace") trace = true
    else if (command !== undefined) rest.push(arg)
    else if (arg === "-v" || arg === "--version") showVersion = true
    else if (arg.startsWith("-")) problem ??= usageError(`Unknown option '${arg}'. Run 'core --help' for the global options.`, "UNKNOWN_OPTION")
    else command = arg
  }
  return { help, version: showVersion, json, trace, command, rest, problem }
}

const report = (ui: Ui, error: unknown): number => {
  const failure = error instanceof CliError ? error : new CliError(error instanceof Error ? error.message : String(error))
  const { lines = [], details } = failure.extras
  if (ui.json) {
    // Lines render the details when there are any; otherwise they are hints of their own.
    const extra = details !== undefined ? { details } : lines.length > 0 ? { hints: lines } : {}
    ui.error(JSON.stringify({ error: { code: failure.code, message: failure.message, ...extra } }))
  } else {
    ui.error(`core: ${failure.message}`)
    for (const line of lines) ui.error(`  ${line}`)
  }
  return failure.exitCode
}

/** Runs `core` with the arguments after the program name and answers the exit code. */
export const run = async (argv: ReadonlyArray<string>, io: Io): Promise<number> => {
  const invocation = parseInvocation(argv)
  const ui = createUi({ ...io, json: invocation.json })
  try {
    if (invocation.problem !== undefined) throw invocation.problem
    if (invocation.version && invocation.command === undefined) {
      ui.result({ version }, () => ui.line(version))
      return ExitCode.ok
    }
    const help = await import("./commands/help.js")
    if (invocation.command === undefined) {
      if (invocation.help) {
        help.printOverview(ui, commands)
        return ExitCode.ok
      }
      // `core` alone asked for nothing: the usage on stderr and exit 2, so a script that lost its
      // command fails instead of reading the overview as a result (decision 0616).
      help.printOverview(createUi({ ...io, stdout: io.stderr, json: invocation.json }), commands)
      return ExitCode.usage
    }
    const command = findCommand(invocation.command)
    if (command === undefined) throw unknownCommand(invocation.command)
    if (invocation.help) {
      // `core keys create --help` is the subcommand's help; anything else after the command, the command's.
      const sub = invocation.rest.find((arg) => !arg.startsWith("-"))
      const known = command.subcommands?.some((candidate) => candidate.name === sub) === true
      help.printHelpOf(ui, command, known ? sub : undefined)
      return ExitCode.ok
    }
    const module = await command.load()
    // Every request of the command carries one trace context (`traceparent`); `--trace` prints its id.
    const trace = commandTrace(io.env)
    try {
      return await module.run({ argv: invocation.rest, ui, env: { ...io.env, TRACEPARENT: trace.traceparent }, commands })
    } finally {
      if (invocation.trace) ui.error(`trace id: ${trace.traceId}`)
    }
  } catch (error) {
    return report(ui, error)
  }
}
