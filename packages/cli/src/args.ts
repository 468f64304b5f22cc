import { parseArgs, type ParseArgsConfig } from "node:util"
import { CliError, ExitCode, usageError } from "./errors.js"
import { didYouMean } from "./suggest.js"
import type { Ui } from "./ui.js"

type Options = NonNullable<ParseArgsConfig["options"]>

/** The parsed options and positionals of one command line. */
export type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: Array<string>; options: O; allowPositionals: true; strict: true }>>

/** Options every command takes, taken off the line before the command sees it (suggested when mistyped). */
const GLOBAL_FLAGS = ["--json", "--trace", "--help", "--version"]

/**
 * `--opt <value>` where the value starts with a dash (a token or key can: base64url uses `-`) is
 * joined to `--opt=<value>`, which `parseArgs` would otherwise refuse as ambiguous; a value that is
 * itself one of the command's options (`--token --json`: the value was forgotten) is left alone.
 */
const joinDashValues = (argv: ReadonlyArray<string>, options: Options): Array<string> => {
  const flags = new Set([...Object.keys(options).map((name) => `--${name}`), ...GLOBAL_FLAGS])
  const out: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const next = argv[i + 1]
    const name = arg.startsWith("--") ? arg.slice(2) : undefined
    const takesValue = name !== undefined && options[name]?.type === "string"
    if (takesValue && next !== undefined && next !== "--" && next.length > 1 && next.startsWith("-") && !flags.has(next.split("=")[0]!)) {
      out.push(`${arg}=${next}`)
      i++
    } else {
      out.push(arg)
    }
  }
  return out
}

/**
 * Parses a command's arguments with `node:util`'s `parseArgs` (strict), turning its errors into
 * one-line usage errors (exit 2) that name the command and suggest the closest option.
 */
export const parseOptions = <O extends Options>(argv: ReadonlyArray<string>, options: O, usage: string): Parsed<O> => {
  try {
    return parseArgs({ args: joinDashValues(argv, options), options, allowPositionals: true, strict: true })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const unknown = /Unknown option '([^']+)'/.exec(message)
    if (unknown === null) throw usageError(`${message.replace(/\.$/, "")}. Usage: ${usage}`)
    const flags = [...Object.keys(options).map((name) => `--${name}`), ...GLOBAL_FLAGS]
    throw usageError(`Unknown option '${unknown[1]}'.${didYouMean(unknown[1], flags)} Usage: ${usage}`, "UNKNOWN_OPTION")
  }
}

/** Fails with a usage error unless there are exactly the expected positionals. */
export const expectPositionals = (positionals: ReadonlyArray<string>, names: ReadonlyArray<string>, usage: string): ReadonlyArray<string> => {
  if (positionals.length < names.length) {
    throw usageError(`Missing ${names.slice(positionals.length).map((name) => `<${name}>`).join(" ")}. Usage: ${usage}`)
  }
  if (positionals.length > names.length) throw usageError(`Unexpected argument '${positionals[names.length]}'. Usage: ${usage}`)
  return positionals
}

/** Splits `<verb> [args…]` off a command group's arguments, failing with the group's usage when the verb is missing or unknown. */
export const verbOf = <V extends string>(
  argv: ReadonlyArray<string>,
  verbs: ReadonlyArray<V>,
  usage: string
): { readonly verb: V; readonly rest: ReadonlyArray<string> } => {
  const [verb, ...rest] = argv
  if (verb === undefined || verb.startsWith("-")) throw usageError(`Missing subcommand (${verbs.join(", ")}). Usage: ${usage}`)
  if (!(verbs as ReadonlyArray<string>).includes(verb)) {
    throw usageError(`Unknown subcommand '${verb}' (expected ${verbs.join(", ")}).${didYouMean(verb, verbs)} Usage: ${usage}`, "UNKNOWN_COMMAND")
  }
  return { verb: verb as V, rest }
}

/** `--limit <n>` of a list: a positive integer (at most `max` when given), or undefined when absent. */
export const limitOf = (value: string | undefined, usage: string, max?: number): number | undefined => {
  if (value === undefined) return undefined
  const limit = /^\d+$/.test(value) ? Number(value) : Number.NaN
  if (!(Number.isSafeInteger(limit) && limit >= 1 && (max === undefined || limit <= max))) {
    throw usageError(`--limit must be ${max === undefined ? "a positive integer" : `an integer from 1 to ${max}`}, got '${value}'. Usage: ${usage}`)
  }
  return limit
}

/** The `--yes` option of a destructive subcommand. */
export const yesOption = { yes: { type: "boolean" } } as const

/**
 * Makes sure a destructive action is wanted: `--yes`, or a yes on a terminal. Without a terminal
 * to ask on (piped, `--json`, CI) and without `--yes` it refuses with a usage error (exit 2);
 * a no on the terminal exits 1 and does nothing.
 */
export const confirmDestructive = async (ui: Ui, yes: boolean | undefined, action: string): Promise<void> => {
  if (yes === true) return
  if (!ui.canAsk) {
    throw usageError(`Refusing to ${action} without confirmation: pass --yes (there is no terminal to ask on).`, "CONFIRMATION_REQUIRED")
  }
  if (!(await ui.confirm(`${action.charAt(0).toUpperCase()}${action.slice(1)}?`, { nonInteractive: false }))) {
    throw new CliError(`Cancelled: did not ${action}.`, ExitCode.failure, "CANCELLED")
  }
}
