import { Effect, Exit } from "effect"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import * as Cli from "../src/Cli.js"
import { failed, usage } from "../src/Failure.js"

/** Run `body` with `env` set in `process.env`, then put the previous values back. */
const withEnv = async <A>(env: Record<string, string>, body: () => Promise<A>): Promise<A> => {
  const previous = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]))
  Object.assign(process.env, env)
  try {
    return await body()
  } finally {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
}

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

  it("refuses to start, exit 1, naming a bad domain variable as a bad shared one", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "core-cli-")), "never")
    for (const [name, value, expected] of [
      ["STRIPE_SECRET_KEY", "bogus", "core-server: Invalid configuration: STRIPE_SECRET_KEY must be a Stripe secret key (sk_… or rk_…)"],
      ["SMTP_URL", "http://x", "core-server: Invalid configuration: SMTP_URL must be an smtp:// or smtps:// URL (got \"http://x\")"],
      ["PORT", "http", "core-server: Invalid configuration: PORT must be an integer between 0 and 65535 (got \"http\")"]
    ] as const) {
      const exit = await withEnv({ NODE_ENV: "development", CORE_DATA_DIR: dir, [name]: value }, () => Effect.runPromiseExit(Cli.run({ _tag: "Start", port: undefined })))
      expect([Cli.exitCode(exit), Cli.report(exit)]).toEqual([1, expected])
    }
    expect(existsSync(dir)).toBe(false)
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
