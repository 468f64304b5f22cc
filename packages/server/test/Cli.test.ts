import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import * as Cli from "../src/Cli.js"
import { failed, usage } from "../src/Failure.js"

describe("Cli", () => {
  it("exits 0 on success and on interruption (SIGTERM, SIGINT)", async () => {
    for (const exit of [Exit.void, await Effect.runPromiseExit(Effect.interrupt)]) {
      expect([Cli.exitCode(exit), Cli.report(exit)]).toEqual([0, undefined])
    }
  })

  it("exits with the failure's code and prints its message", () => {
    expect([Cli.exitCode(Exit.fail(usage("unknown command \"x\""))), Cli.report(Exit.fail(usage("unknown command \"x\"")))]).toEqual([
      2,
      "core-server: unknown command \"x\"\nRun core-server --help for usage."
    ])
    expect([Cli.exitCode(Exit.fail(failed("PORT 80 is already in use"))), Cli.report(Exit.fail(failed("PORT 80 is already in use")))]).toEqual([
      1,
      "core-server: PORT 80 is already in use"
    ])
  })

  it("exits 1 on a defect, with its trace and no credentials", () => {
    const exit = Exit.die(new Error("connect to postgres://core:hunter2@db/core failed"))
    expect(Cli.exitCode(exit)).toBe(1)
    const report = Cli.report(exit) ?? ""
    expect(report).toMatch(/^core-server: unexpected failure\n/)
    expect(report).toContain("connect to postgres://core:[REDACTED]@db/core failed")
    expect(report).not.toContain("hunter2")
  })

  it("prints help and the version without reading the configuration", async () => {
    const previous = process.env.PORT
    process.env.PORT = "not-a-port"
    try {
      expect(await Effect.runPromiseExit(Cli.run({ _tag: "Version" }))).toEqual(Exit.void)
    } finally {
      if (previous === undefined) delete process.env.PORT
      else process.env.PORT = previous
    }
  })
})
