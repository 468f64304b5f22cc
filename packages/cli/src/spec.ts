import { type CliError, usageError } from "./errors.js"
import { didYouMean } from "./suggest.js"
import type { Ui } from "./ui.js"

/*
 * The shape of a command's help and code, which each command's `commands/<name>.spec.ts` fills in
 * beside its `commands/<name>.ts`; `registry.ts` lists them in `core --help`'s order.
 */

/** What a command receives when it runs. */
export interface CommandContext {
  /** The arguments after the command name, without the global options. */
  readonly argv: ReadonlyArray<string>
  readonly ui: Ui
  readonly env: Readonly<Record<string, string | undefined>>
  /** Every command, in `core --help`'s order (what `core help` lists). */
  readonly commands: ReadonlyArray<CommandSpec>
}

/** A command's implementation, loaded only when the command runs. */
export interface CommandModule {
  /** Runs the command and answers its exit code. */
  readonly run: (context: CommandContext) => Promise<number>
}

/** One option in a command's help. */
export interface OptionHelp {
  readonly flags: string
  readonly description: string
}

/** One environment variable in a command's help. */
export interface EnvironmentHelp {
  readonly name: string
  readonly description: string
}

/** One subcommand of a group (`keys create`): its own usage, options and examples. */
export interface SubcommandSpec {
  readonly name: string
  readonly summary: string
  /** The full usage, e.g. `core keys revoke <key id> [--yes]`; the command's parser reports it. */
  readonly usage: string
  /** Its own options; the group's and the global ones are added in its help. */
  readonly options: ReadonlyArray<OptionHelp>
  readonly examples?: ReadonlyArray<string>
}

/** A command group: its help, and a lazy loader for its code (one file under `commands/`). */
export interface CommandSpec {
  readonly name: string
  /** One line for `core --help`. */
  readonly summary: string
  /** E.g. `core help [command]`. */
  readonly usage: string
  /** Options every subcommand takes (or the command's own, without subcommands). */
  readonly options: ReadonlyArray<OptionHelp>
  readonly subcommands?: ReadonlyArray<SubcommandSpec>
  readonly examples: ReadonlyArray<string>
  /** The environment variables the command reads. */
  readonly environment: ReadonlyArray<EnvironmentHelp>
  readonly load: () => Promise<CommandModule>
}

/** A command's help: its spec without the loader, written beside its code (`commands/<name>.spec.ts`). */
export type CommandHelp = Omit<CommandSpec, "load">

/** The options every command understands. */
export const globalOptions: ReadonlyArray<OptionHelp> = [
  { flags: "-h, --help", description: "Show help (also: core <command> --help)" },
  { flags: "-v, --version", description: "Print the version of core" },
  { flags: "--json", description: "Print JSON on stdout instead of text, for scripts" }
]

/** The environment variables of `core --help`. */
export const globalEnvironment: ReadonlyArray<EnvironmentHelp> = [
  { name: "CORE_API_URL", description: "The gateway address core login uses (default: http://localhost:8787)" },
  { name: "CORE_IAM_URL", description: "The identity service address core login uses (default: $CORE_API_URL/api/v1/iam)" },
  { name: "TRACEPARENT", description: "A W3C trace context the command's requests continue (default: a new trace per command; --trace prints its id on stderr)" },
  { name: "CORE_ORG", description: "The organization of members, invitations, keys, roles, grants and audit when --org is not given" },
  { name: "CI, TERM=dumb", description: "No spinners, prompts or browser (as when output is piped)" },
  { name: "HOME", description: "Credentials live in $HOME/.core/credentials.json" }
]

/** The subcommand `sub` of `command` (which must have it: a programming error otherwise). */
export const subcommandIn = (command: CommandHelp, sub: string): SubcommandSpec => {
  const found = command.subcommands?.find((candidate) => candidate.name === sub)
  if (found === undefined) throw new Error(`No subcommand ${command.name} ${sub} in its spec`)
  return found
}

/** The usage line of `core <command> <sub>`, as its help prints it. */
export const usageIn = (command: CommandHelp, sub: string): string => subcommandIn(command, sub).usage

/** The usage error for a subcommand that does not exist, with a suggestion when one is close. */
export const unknownSubcommand = (command: CommandHelp, name: string): CliError =>
  usageError(
    `Unknown subcommand '${name}' of core ${command.name}.${didYouMean(name, (command.subcommands ?? []).map((sub) => sub.name))} Run 'core help ${command.name}' for its subcommands.`,
    "UNKNOWN_COMMAND"
  )

/** The usage error for a command that does not exist among `commands`, with a suggestion when one is close. */
export const unknownCommandIn = (commands: ReadonlyArray<CommandHelp>, name: string): CliError =>
  usageError(
    `Unknown command '${name}'.${didYouMean(name, commands.map((command) => command.name))} Run 'core --help' for the list of commands.`,
    "UNKNOWN_COMMAND"
  )
