import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { commands, globalEnvironment } from "../packages/cli/src/registry.js"
import { formatColumns } from "../packages/cli/src/ui.js"
import { cliRoot, runCore } from "../packages/cli/test/run-core.js"

const fromSource = (args: ReadonlyArray<string>) => runCore(args, { env: { CORE_CLI_SOURCE: "1" } })
const packageVersion: string = JSON.parse(readFileSync(join(cliRoot, "package.json"), "utf8")).version

const overview = `core ${packageVersion}: the command line of a Core platform

Usage: core <command> [options]

Commands:
${formatColumns(commands.map((command) => [command.usage.replace(/^core /, ""), command.summary]), "  ").join("\n")}

Global options:
  -h, --help     Show help (also: core <command> --help)
  -v, --version  Print the version of core
      --json     Print JSON on stdout instead of text, for scripts

Environment:
${formatColumns(globalEnvironment.map((variable) => [variable.name, variable.description]), "  ").join("\n")}

Run 'core help <command>' for the usage of one command.
`

const helpOfHelp = `Usage: core help [command] [subcommand]

Show help for core, for one command or for one subcommand.

Options:
  -h, --help     Show help (also: core <command> --help)
  -v, --version  Print the version of core
      --json     Print JSON on stdout instead of text, for scripts

Examples:
  core help keys
  core help keys create
`

describe.concurrent("core (from the TypeScript source, no build)", () => {
  it("--help lists the commands and global options, exit 0", async () => {
    expect(await fromSource(["--help"])).toEqual({ code: 0, stdout: overview, stderr: "" })
  })

  it("shows the same overview for -h and 'help'", async () => {
    for (const args of [["-h"], ["help"]]) expect(await fromSource(args)).toEqual({ code: 0, stdout: overview, stderr: "" })
  })

  it("no command at all is a usage error: the overview on stderr, nothing on stdout, exit 2", async () => {
    expect(await fromSource([])).toEqual({ code: 2, stdout: "", stderr: overview })
    const json = await fromSource(["--json"])
    expect({ code: json.code, stdout: json.stdout }).toEqual({ code: 2, stdout: "" })
    expect(JSON.parse(json.stderr)).toMatchObject({ name: "core", usage: "core <command> [options]" })
  })

  it("--version prints the package version, also as JSON", async () => {
    expect(await fromSource(["--version"])).toEqual({ code: 0, stdout: `${packageVersion}\n`, stderr: "" })
    expect(await fromSource(["-v"])).toEqual({ code: 0, stdout: `${packageVersion}\n`, stderr: "" })
    const json = await fromSource(["--version", "--json"])
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual({ version: packageVersion })
  })

  it("--help --json describes the commands for scripts", async () => {
    const { code, stdout, stderr } = await fromSource(["--help", "--json"])
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" })
    expect(JSON.parse(stdout)).toEqual({
      name: "core",
      version: packageVersion,
      usage: "core <command> [options]",
      commands: commands.map(({ name, summary, usage }) => ({ name, summary, usage })),
      options: [
        { flags: "-h, --help", description: "Show help (also: core <command> --help)" },
        { flags: "-v, --version", description: "Print the version of core" },
        { flags: "--json", description: "Print JSON on stdout instead of text, for scripts" }
      ],
      environment: globalEnvironment
    })
  })

  it("'help <command>' and '<command> --help' print that command's usage", async () => {
    expect(await fromSource(["help", "help"])).toEqual({ code: 0, stdout: helpOfHelp, stderr: "" })
    expect(await fromSource(["help", "--help"])).toEqual({ code: 0, stdout: helpOfHelp, stderr: "" })
    const json = await fromSource(["help", "help", "--json"])
    expect(JSON.parse(json.stdout)).toEqual({
      name: "help",
      summary: "Show help for core, for one command or for one subcommand",
      usage: "core help [command] [subcommand]",
      options: [],
      subcommands: [],
      examples: ["core help keys", "core help keys create"],
      environment: []
    })
  })

  it("an unknown command exits 2 with a message on stderr and nothing on stdout", async () => {
    expect(await fromSource(["hepl"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "core: Unknown command 'hepl'. Did you mean 'help'? Run 'core --help' for the list of commands.\n"
    })
    expect(await fromSource(["frobnicate", "--help"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "core: Unknown command 'frobnicate'. Run 'core --help' for the list of commands.\n"
    })
    expect(await fromSource(["help", "frobnicate"])).toMatchObject({ code: 2, stdout: "" })
  })

  it("an unknown command under --json reports a JSON error on stderr", async () => {
    const { code, stdout, stderr } = await fromSource(["frobnicate", "--json"])
    expect({ code, stdout }).toEqual({ code: 2, stdout: "" })
    expect(JSON.parse(stderr)).toEqual({
      error: { code: "UNKNOWN_COMMAND", message: "Unknown command 'frobnicate'. Run 'core --help' for the list of commands." }
    })
  })

  it("an unknown global option or extra arguments exit 2", async () => {
    expect(await fromSource(["--frob"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "core: Unknown option '--frob'. Run 'core --help' for the global options.\n"
    })
    expect(await fromSource(["help", "keys", "create", "extra"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "core: Too many arguments: core help takes at most a command and a subcommand.\n"
    })
  })
})
