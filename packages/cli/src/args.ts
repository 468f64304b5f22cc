import { parseArgs, type ParseArgsConfig } from "node:util"
import { CliError, ExitCode } from "./errors.js"

type Options = NonNullable<ParseArgsConfig["options"]>

/** The parsed options and positionals of one command line. */
export type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: Array<string>; options: O; allowPositionals: true; strict: true }>>

/**
 * Parses a command's arguments with `node:util`'s `parseArgs` (strict), turning its errors into
 * one-line usage errors that name the command. Usage errors exit 2 unless `exitCode` says otherwise.
 */
export const parseOptions = <O extends Options>(
  argv: ReadonlyArray<string>,
  options: O,
  usage: string,
  exitCode: number = ExitCode.usage
): Parsed<O> => {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const unknown = /Unknown option '([^']+)'/.exec(message)
    const text = unknown !== null ? `Unknown option '${unknown[1]}'` : message.replace(/\.$/, "")
    throw new CliError(`${text}. Usage: ${usage}`, exitCode, unknown !== null ? "UNKNOWN_OPTION" : "USAGE")
  }
}

/** Fails with a usage error unless there are exactly the expected positionals. */
export const expectPositionals = (
  positionals: ReadonlyArray<string>,
  names: ReadonlyArray<string>,
  usage: string,
  exitCode: number = ExitCode.usage
): ReadonlyArray<string> => {
  if (positionals.length < names.length) {
    throw new CliError(`Missing ${names.slice(positionals.length).map((name) => `<${name}>`).join(" ")}. Usage: ${usage}`, exitCode, "USAGE")
  }
  if (positionals.length > names.length) {
    throw new CliError(`Unexpected argument '${positionals[names.length]}'. Usage: ${usage}`, exitCode, "USAGE")
  }
  return positionals
}

/** Splits `<verb> [args…]` off a command group's arguments, failing with the group's usage when the verb is missing or unknown. */
export const verbOf = <V extends string>(
  argv: ReadonlyArray<string>,
  verbs: ReadonlyArray<V>,
  usage: string
): { readonly verb: V; readonly rest: ReadonlyArray<string> } => {
  const [verb, ...rest] = argv
  if (verb === undefined || verb.startsWith("-")) throw new CliError(`Missing subcommand (${verbs.join(", ")}). Usage: ${usage}`, ExitCode.usage, "USAGE")
  if (!(verbs as ReadonlyArray<string>).includes(verb)) {
    throw new CliError(`Unknown subcommand '${verb}' (expected ${verbs.join(", ")}). Usage: ${usage}`, ExitCode.usage, "USAGE")
  }
  return { verb: verb as V, rest }
}
