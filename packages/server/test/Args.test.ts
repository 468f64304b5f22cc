import { describe, expect, it } from "vitest"
import { parse, UsageError, usageOf, USAGE } from "../src/Args.js"

const error = (argv: ReadonlyArray<string>) => {
  const result = parse(argv)
  expect(result).toBeInstanceOf(UsageError)
  return (result as UsageError).message
}

describe("Args", () => {
  it("reads every command", () => {
    expect(parse(["start"])).toEqual({ _tag: "Start", port: undefined })
    expect(parse(["start", "--port", "8080"])).toEqual({ _tag: "Start", port: 8080 })
    expect(parse(["start", "--port=0"])).toEqual({ _tag: "Start", port: 0 })
    expect(parse(["migrate"])).toEqual({ _tag: "Migrate" })
    expect(parse(["backup", "out.tar.gz"])).toEqual({ _tag: "Backup", file: "out.tar.gz" })
    expect(parse(["restore", "in.tar.gz"])).toEqual({ _tag: "Restore", file: "in.tar.gz", yes: false })
    expect(parse(["restore", "in.tar.gz", "--yes"])).toEqual({ _tag: "Restore", file: "in.tar.gz", yes: true })
    expect(parse(["restore", "-y", "in.tar.gz"])).toEqual({ _tag: "Restore", file: "in.tar.gz", yes: true })
    expect(parse(["serve", "--service", "iam", "--port", "9000"])).toEqual({ _tag: "Serve", service: "iam", port: 9000 })
    expect(parse(["serve", "--service=registry"])).toEqual({ _tag: "Serve", service: "registry", port: undefined })
  })

  it("reads help and version anywhere", () => {
    expect(parse(["--help"])).toEqual({ _tag: "Help", topic: undefined })
    expect(parse(["-h"])).toEqual({ _tag: "Help", topic: undefined })
    expect(parse(["help", "backup"])).toEqual({ _tag: "Help", topic: "backup" })
    expect(parse(["backup", "--help"])).toEqual({ _tag: "Help", topic: "backup" })
    expect(parse(["--version"])).toEqual({ _tag: "Version" })
    expect(parse(["start", "-v"])).toEqual({ _tag: "Version" })
  })

  it("explains bad command lines", () => {
    expect(error([])).toBe("a command is required")
    expect(error(["launch"])).toBe("unknown command \"launch\"")
    expect(error(["start", "now"])).toBe("start takes no arguments (got \"now\")")
    expect(error(["backup"])).toBe("backup needs <file>")
    expect(error(["restore", "a", "b"])).toBe("restore takes one <file>, got 2")
    expect(error(["serve"])).toBe("serve needs --service <name>")
    expect(error(["serve", "--service", "iam", "--port", "http"])).toBe("--port must be an integer between 0 and 65535 (got \"http\")")
    expect(error(["serve", "--service", "iam", "--port", "70000"])).toBe("--port must be an integer between 0 and 65535 (got \"70000\")")
    expect(error(["start", "--port", "http"])).toBe("--port must be an integer between 0 and 65535 (got \"http\")")
    expect(error(["start", "--service", "iam"])).toBe("start takes no --service")
    expect(error(["migrate", "--port", "1"])).toBe("migrate takes no --port")
    expect(error(["backup", "a.tar.gz", "--yes"])).toBe("backup takes no --yes")
    expect(error(["start", "--verbose"])).toMatch(/Unknown option '--verbose'/)
  })

  it("has help for the whole program and for each command", () => {
    expect(USAGE).toMatch(/^Usage: core-server <command> \[options\]/)
    for (const command of ["start", "migrate", "backup", "restore", "serve"]) {
      expect(usageOf(command)).toMatch(new RegExp(`^Usage: core-server ${command}`))
    }
    expect(usageOf("nothing")).toBe(USAGE)
  })
})
