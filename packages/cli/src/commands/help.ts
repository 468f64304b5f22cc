import { usageError } from "../errors.js"
import {
  globalEnvironment,
  globalOptions,
  unknownCommandIn,
  unknownSubcommand,
  type CommandContext,
  type CommandHelp,
  type EnvironmentHelp,
  type OptionHelp,
  type SubcommandSpec
} from "../spec.js"
import { formatColumns, type Ui } from "../ui.js"
import { version } from "../version.js"

const optionRows = (options: ReadonlyArray<OptionHelp>) =>
  formatColumns(options.map((option) => [option.flags.startsWith("--") ? `    ${option.flags}` : option.flags, option.description]), "  ")

const environmentRows = (environment: ReadonlyArray<EnvironmentHelp>) =>
  formatColumns(environment.map((variable) => [variable.name, variable.description]), "  ")

/** `revoke <key id>` from `core keys revoke <key id> [--yes]`: the name and its arguments, no options. */
const synopsis = (command: CommandHelp, sub: SubcommandSpec): string => {
  const words = sub.usage.replace(`core ${command.name} `, "").split(" ")
  const end = words.findIndex((word) => word.startsWith("[--") || word.startsWith("--"))
  return (end === -1 ? words : words.slice(0, end)).join(" ")
}

/** Prints a heading and its lines, after a blank line, when there are any. */
const section = (ui: Ui, heading: string, lines: ReadonlyArray<string>): void => {
  if (lines.length === 0) return
  ui.line()
  ui.line(`${heading}:`)
  for (const text of lines) ui.line(text)
}

/** Prints the overview: usage, commands, global options, environment. */
export const printOverview = (ui: Ui, commands: ReadonlyArray<CommandHelp>): void =>
  ui.result(
    {
      name: "core",
      version,
      usage: "core <command> [options]",
      commands: commands.map(({ name, summary, usage }) => ({ name, summary, usage })),
      options: globalOptions,
      environment: globalEnvironment
    },
    () => {
      ui.line(`core ${version}: the command line of a Core platform`)
      ui.line()
      ui.line("Usage: core <command> [options]")
      section(ui, "Commands", formatColumns(commands.map((command) => [command.usage.replace(/^core /, ""), command.summary]), "  "))
      section(ui, "Global options", optionRows(globalOptions))
      section(ui, "Environment", environmentRows(globalEnvironment))
      ui.line()
      ui.line("Run 'core help <command>' for the usage of one command.")
    }
  )

/** Prints one command's usage, subcommands, options (each subcommand's own too), examples and environment. */
export const printCommandHelp = (ui: Ui, command: CommandHelp): void => {
  const subcommands = command.subcommands ?? []
  ui.result(
    {
      name: command.name,
      summary: command.summary,
      usage: command.usage,
      options: command.options,
      subcommands: subcommands.map(({ name, summary, usage }) => ({ name, summary, usage })),
      examples: command.examples,
      environment: command.environment
    },
    () => {
      ui.line(`Usage: ${command.usage}`)
      ui.line()
      ui.line(`${command.summary}.`)
      section(ui, "Subcommands", formatColumns(subcommands.map((sub) => [synopsis(command, sub), sub.summary]), "  "))
      section(ui, "Options", optionRows([...command.options, ...globalOptions]))
      for (const sub of subcommands) section(ui, `Options of ${command.name} ${sub.name}`, optionRows(sub.options))
      section(ui, "Examples", command.examples.map((example) => `  ${example}`))
      section(ui, "Environment", environmentRows(command.environment))
      if (subcommands.length > 0) {
        ui.line()
        ui.line(`Run 'core help ${command.name} <subcommand>' for the options of one subcommand.`)
      }
    }
  )
}

/** Prints one subcommand's usage, its options (with the group's and the global ones), examples and environment. */
export const printSubcommandHelp = (ui: Ui, command: CommandHelp, sub: SubcommandSpec): void => {
  const options = [...sub.options, ...command.options, ...globalOptions]
  const examples = sub.examples ?? command.examples.filter((example) => example.startsWith(`core ${command.name} ${sub.name}`))
  ui.result(
    { name: `${command.name} ${sub.name}`, summary: sub.summary, usage: sub.usage, options, examples, environment: command.environment },
    () => {
      ui.line(`Usage: ${sub.usage}`)
      ui.line()
      ui.line(`${sub.summary}.`)
      section(ui, "Options", optionRows(options))
      section(ui, "Examples", examples.map((example) => `  ${example}`))
      section(ui, "Environment", environmentRows(command.environment))
    }
  )
}

/**
 * Prints the help `core help <name> [sub]` asks for (also `core <name> [sub] --help`): a
 * subcommand's when `sub` names one of the command's, else the command's.
 */
export const printHelpOf = (ui: Ui, command: CommandHelp, sub: string | undefined): void => {
  if (sub === undefined || command.subcommands === undefined) return printCommandHelp(ui, command)
  const found = command.subcommands.find((candidate) => candidate.name === sub)
  if (found === undefined) throw unknownSubcommand(command, sub)
  printSubcommandHelp(ui, command, found)
}

/** `core help [command] [subcommand]`. */
export const run = async ({ argv, ui, commands }: CommandContext): Promise<number> => {
  const [name, sub, ...extra] = argv
  if (extra.length > 0) throw usageError(`Too many arguments: core help takes at most a command and a subcommand.`)
  if (name === undefined) {
    printOverview(ui, commands)
    return 0
  }
  const command = commands.find((candidate) => candidate.name === name)
  if (command === undefined) throw unknownCommandIn(commands, name)
  if (sub !== undefined && command.subcommands === undefined) throw usageError(`core ${name} has no subcommands. Run 'core help ${name}'.`)
  printHelpOf(ui, command, sub)
  return 0
}
