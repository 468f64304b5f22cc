import { usageError, type CliError } from "./errors.js"
import type { Ui } from "./ui.js"

/** What a command receives when it runs. */
export interface CommandContext {
  /** The arguments after the command name, without the global options. */
  readonly argv: ReadonlyArray<string>
  readonly ui: Ui
  readonly env: Readonly<Record<string, string | undefined>>
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

/** A command group: its help, and a lazy loader for its code (one file under `commands/`). */
export interface CommandSpec {
  readonly name: string
  /** One line for `core --help`. */
  readonly summary: string
  /** E.g. `core help [command]`. */
  readonly usage: string
  readonly options: ReadonlyArray<OptionHelp>
  readonly load: () => Promise<CommandModule>
}

/** The options every command understands. */
export const globalOptions: ReadonlyArray<OptionHelp> = [
  { flags: "-h, --help", description: "Show help (also: core <command> --help)" },
  { flags: "-v, --version", description: "Print the version of core" },
  { flags: "--json", description: "Print JSON on stdout instead of text, for scripts" }
]

/** Every command, in the order `core --help` lists them. A new group is one entry here and one file. */
export const commands: ReadonlyArray<CommandSpec> = [
  {
    name: "help",
    summary: "Show help for core or for one command",
    usage: "core help [command]",
    options: [],
    load: () => import("./commands/help.js")
  },
  {
    name: "login",
    summary: "Log in: approve this device in a browser, or store a token (--token)",
    usage: "core login [--token <token>] [--iam-url <url>] [--no-browser]",
    options: [
      { flags: "--token <token>", description: "Store this API key or session token instead of logging in interactively ('-' reads stdin)" },
      { flags: "--iam-url <url>", description: "Identity service address (default: $CORE_IAM_URL, else <api url>/api/v1/iam)" },
      { flags: "--no-browser", description: "Print the address and code without opening a browser" }
    ],
    load: () => import("./commands/login.js")
  },
  {
    name: "logout",
    summary: "Log out: end the session and clear ~/.core/credentials.json",
    usage: "core logout",
    options: [],
    load: () => import("./commands/logout.js")
  },
  {
    name: "whoami",
    summary: "Show who is logged in (email, platform, role, expiry)",
    usage: "core whoami [--json]",
    options: [],
    load: () => import("./commands/whoami.js")
  }
]

/** The command called `name`, if there is one. */
export const findCommand = (name: string): CommandSpec | undefined => commands.find((command) => command.name === name)

const distance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]
}

/** The closest command name to a mistyped one (at most two edits away), if any. */
export const suggestCommand = (name: string): string | undefined =>
  commands
    .map((command) => ({ name: command.name, distance: distance(name.toLowerCase(), command.name) }))
    .filter((candidate) => candidate.distance <= 2)
    .sort((a, b) => a.distance - b.distance)[0]?.name

/** The usage error for a command that does not exist, with a suggestion when one is close. */
export const unknownCommand = (name: string): CliError => {
  const suggestion = suggestCommand(name)
  return usageError(
    `Unknown command '${name}'.${suggestion ? ` Did you mean '${suggestion}'?` : ""} Run 'core --help' for the list of commands.`,
    "UNKNOWN_COMMAND"
  )
}
