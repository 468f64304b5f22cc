import { describe, expect, it } from "vitest"
import { parseOptions } from "../src/args.js"
import { CliError } from "../src/errors.js"

const options = { token: { type: "string" }, "iam-url": { type: "string" }, yes: { type: "boolean" } } as const
const USAGE = "core login [--token <token>]"

describe("parseOptions", () => {
  it("takes a value that starts with a dash (a base64url token can) as the option's value", () => {
    expect(parseOptions(["--token", "-Zx_9a-b"], options, USAGE).values.token).toBe("-Zx_9a-b")
    expect(parseOptions(["--token", "--Zx"], options, USAGE).values.token).toBe("--Zx")
    expect(parseOptions(["--token=-Zx", "--yes"], options, USAGE).values).toEqual({ token: "-Zx", yes: true })
    expect(parseOptions(["--token", "-", "--yes"], options, USAGE).values).toEqual({ token: "-", yes: true })
  })

  it("still refuses a forgotten value followed by another option (exit 2)", () => {
    for (const argv of [["--token", "--yes"], ["--token", "--json"], ["--token", "--iam-url=http://x"]]) {
      let error: unknown
      try {
        parseOptions(argv, options, USAGE)
      } catch (caught) {
        error = caught
      }
      expect(error).toBeInstanceOf(CliError)
      expect((error as CliError).exitCode).toBe(2)
      expect((error as CliError).message).toMatch(/--token.*Usage: core login/s)
    }
  })

  it("leaves positionals after -- alone", () => {
    expect(parseOptions(["--token", "abc", "--", "-x"], options, USAGE).positionals).toEqual(["-x"])
  })
})
