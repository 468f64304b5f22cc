import { describe, expect, it } from "vitest"
import { CliError } from "../src/errors.js"
import { commands, findCommand, suggestCommand, unknownCommand } from "../src/registry.js"

describe("command registry", () => {
  it("finds commands by exact name and loads their module lazily", async () => {
    expect(findCommand("help")?.usage).toBe("core help [command] [subcommand]")
    expect(findCommand("HELP")).toBeUndefined()
    for (const command of commands) expect(typeof (await command.load()).run).toBe("function")
  })

  it("suggests a command at most two edits away", () => {
    expect(suggestCommand("hepl")).toBe("help")
    expect(suggestCommand("Help")).toBe("help")
    expect(suggestCommand("payroll")).toBeUndefined()
  })

  it("makes unknown commands usage errors (exit 2)", () => {
    const error = unknownCommand("hlp")
    expect(error).toBeInstanceOf(CliError)
    expect(error).toMatchObject({
      exitCode: 2,
      code: "UNKNOWN_COMMAND",
      message: "Unknown command 'hlp'. Did you mean 'help'? Run 'core --help' for the list of commands."
    })
  })
})
