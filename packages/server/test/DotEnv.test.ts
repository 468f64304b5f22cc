import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import * as DotEnv from "../src/DotEnv.js"

const work = mkdtempSync(join(tmpdir(), "core-dotenv-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe("DotEnv", () => {
  it("sets what the environment does not, and leaves what it does", () => {
    const dir = join(work, "app")
    mkdirSync(dir)
    writeFileSync(join(dir, ".env"), "# a comment\nPORT=9000\nLOG_LEVEL=debug\nexport CORE_PUBLIC_URL=\"http://core.test\"\n")
    const env: Record<string, string | undefined> = { PORT: "8080" }
    expect([...(DotEnv.load(env, dir) as ReadonlyArray<string>)].sort()).toEqual(["CORE_PUBLIC_URL", "LOG_LEVEL"])
    expect(env).toEqual({ PORT: "8080", LOG_LEVEL: "debug", CORE_PUBLIC_URL: "http://core.test" })
  })

  it("does nothing without a .env file", () => {
    const env = { PORT: "1" }
    expect(DotEnv.load(env, work)).toEqual([])
    expect(env).toEqual({ PORT: "1" })
  })

  it("names a .env it cannot read", () => {
    const dir = join(work, "unreadable")
    mkdirSync(join(dir, ".env"), { recursive: true })
    const result = DotEnv.load({}, dir)
    expect(result).toBeInstanceOf(DotEnv.DotEnvError)
    expect((result as DotEnv.DotEnvError).message).toMatch(new RegExp(`^Cannot read ${join(dir, ".env")}: `))
  })
})
