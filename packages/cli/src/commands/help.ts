import { usageError } from "../errors.js"
import { commands, findCommand, globalOptions, unknownCommand, type CommandContext, type CommandSpec, type OptionHelp } from "../registry.js"
import { formatColumns, type Ui } from "../ui.js"
import { version } from "../version.js"

const optionRows = (options: ReadonlyArray<OptionHelp>) =>
  formatColumns(options.map((option) => [option.flags.startsWith("--") ? `    ${option.flags}` : option.flags, option.description]), "  ")

/** Prints the overview: usage, commands, global options. */
export const printOverview = (ui: Ui): void =>
  ui.result(
    {
      name: "core",
      version,
      usage: "core <command> [options]",
      commands: commands.map(({ name, summary, usage }) => ({ name, summary, usage })),
      options: globalOptions
    },
    () => {
      ui.line(`core ${version}: the command line of a Core platform`)
      ui.line()
      ui.line("Usage: core <command> [options]")
      ui.line()
      ui.line("Commands:")
      for (const text of formatColumns(commands.map((command) => [command.usage.replace(/^core /, ""), command.summary]), "  ")) ui.line(text)
      ui.line()
      ui.line("Global options:")
      for (const text of optionRows(globalOptions)) ui.line(text)
      ui.line()
      ui.line("Run 'core help <command>' for the usage of one command.")
    }
  )

/** Prints one command's usage and options. */
export const printCommandHelp = (ui: Ui, command: CommandSpec): void =>
  ui.result({ name: command.name, summary: command.summary, usage: command.usage, options: command.options }, () => {
    ui.line(`Usage: ${command.usage}`)
    ui.line()
    ui.line(`${command.summary}.`)
    const options = [...command.options, ...globalOptions]
    ui.line()
    ui.line("Options:")
    for (const text of optionRows(options)) ui.line(text)
  })

/** `core help [command]`. */
export const run = async ({ argv, ui }: CommandContext): Promise<number> => {
  const [name, ...extra] = argv
  if (extra.length > 0) throw usageError(`Too many arguments: core help takes at most one command name.`)
  if (name === undefined) {
    printOverview(ui)
    return 0
  }
  const command = findCommand(name)
  if (command === undefined) throw unknownCommand(name)
  printCommandHelp(ui, command)
  return 0
}
