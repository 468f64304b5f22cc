import { Config } from "@core/kernel"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { firstScreen } from "../src/Banner.js"

const config = (env: Record<string, string>) => Either.getOrThrow(Config.parseConfig({ CORE_DATA_DIR: ":memory:", ...env }))

describe("firstScreen", () => {
  it("lists the addresses and what to try next, with the port actually bound", () => {
    const text = firstScreen({ port: 8787, config: config({}), storage: { _tag: "Embedded", dataDir: "/srv/core" }, version: "1.2.3" })
    expect(text).toContain("Core 1.2.3 is running.")
    expect(text).toContain("  Local:     http://localhost:8787\n")
    expect(text).toContain("  Health:    http://localhost:8787/health   (liveness: 200 while the process runs, from its first moment)\n")
    expect(text).toContain("  Ready:     http://localhost:8787/ready    (readiness: 200 once it serves; requests sent before wait for it)\n")
    expect(text).toContain("  API base:  http://localhost:8787/api/v1\n")
    expect(text).toContain("  Data:      embedded PostgreSQL in /srv/core\n")
    expect(text).toContain("  Try next:\n    open http://localhost:8787/sign-up to create an account and an organization\n")
    expect(text).toContain("    then npx core login to sign the CLI in\n")
    expect(text).toContain("npx core --help")
    expect(text).not.toContain("Public:")
  })

  it("shows a configured public address, and never a database URL", () => {
    const text = firstScreen({
      port: 41000,
      config: config({ PORT: "0", CORE_PUBLIC_URL: "https://core.example.com" }),
      storage: { _tag: "PostgreSQL" },
      version: "1.0.0"
    })
    expect(text).toContain("  Local:     http://localhost:41000\n")
    expect(text).toContain("  Public:    https://core.example.com\n")
    expect(text).toContain("  Data:      PostgreSQL (DATABASE_URL)\n")
    expect(text).toContain("    then CORE_API_URL=http://localhost:41000 npx core login to sign the CLI in\n")
  })

  it("says when the data is in memory", () => {
    const text = firstScreen({ port: 8787, config: config({}), storage: { _tag: "Embedded", dataDir: undefined }, version: "1.0.0" })
    expect(text).toContain("embedded PostgreSQL, in memory (nothing is kept after exit)")
  })
})
