import { execFileSync, spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Figures } from "./Figures.js"

const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 20)
const TARGET = 3

const cliRoot = fileURLToPath(new URL("../packages/cli/", import.meta.url))

/** Bundles the CLI with tsup into a temporary folder beside a copy of its launcher, as it is published. */
const buildCli = (staging: string): string => {
  execFileSync(join(cliRoot, "..", "..", "node_modules", ".bin", "tsup"), ["--out-dir", join(staging, "dist")], { cwd: cliRoot, stdio: "ignore" })
  mkdirSync(join(staging, "bin"))
  copyFileSync(join(cliRoot, "bin", "core.mjs"), join(staging, "bin", "core.mjs"))
  return join(staging, "bin", "core.mjs")
}

/** A logged-in home, so `core whoami` reads a real credential file. */
const loggedInHome = (staging: string): string => {
  const home = join(staging, "home")
  mkdirSync(join(home, ".core"), { recursive: true, mode: 0o700 })
  const record = {
    token: "bench-token",
    refreshToken: "bench-refresh",
    email: "bench@example.com",
    platformId: "plt_bench",
    role: "owner",
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    iamUrl: "http://localhost:8787/api/v1/iam",
    apiUrl: "http://localhost:8787",
    audience: "core-cli"
  }
  writeFileSync(join(home, ".core", "credentials.json"), JSON.stringify(record), { mode: 0o600 })
  return home
}

const timeOnce = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): number => {
  const started = process.hrtime.bigint()
  const result = spawnSync(process.execPath, args, { env, stdio: "ignore" })
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited with ${result.status}`)
  return elapsed
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 0 ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
}

/**
 * Start-up time of the bundled `core` (`--version`, and `whoami` reading a credential file) against
 * `node -e 0`, each run `BENCH_CLI_RUNS` times (default 20), interleaved, as medians within this run.
 */
export const run = async (): Promise<Figures> => {
  const staging = mkdtempSync(join(tmpdir(), "core-cli-bench-"))
  try {
    const bin = buildCli(staging)
    const env = { ...process.env, HOME: loggedInHome(staging), CORE_CLI_SOURCE: "", NO_COLOR: "1" }
    const targets = [
      { name: "node -e 0", args: ["-e", "0"] },
      { name: "core --version", args: [bin, "--version"] },
      { name: "core whoami", args: [bin, "whoami"] }
    ]
    for (const target of targets) timeOnce(target.args, env)
    const samples = new Map(targets.map((target) => [target.name, [] as Array<number>]))
    for (let round = 0; round < RUNS; round++) {
      for (const target of targets) samples.get(target.name)!.push(timeOnce(target.args, env))
    }
    const medians = new Map(targets.map((target) => [target.name, median(samples.get(target.name)!)]))
    const baseline = medians.get("node -e 0")!
    const ratio = (name: string) => medians.get(name)! / baseline
    return {
      title: `CLI start-up: bundled core vs node -e 0, ${RUNS} runs each (interleaved), median wall time`,
      columns: ["command", "median ms", "min ms", "× node -e 0"],
      rows: targets.map((target) => [
        target.name,
        medians.get(target.name)!.toFixed(1),
        Math.min(...samples.get(target.name)!).toFixed(1),
        ratio(target.name).toFixed(2)
      ]),
      checks: ["core --version", "core whoami"].map((name) => {
        const value = ratio(name)
        return `${name}: ${value.toFixed(2)}× node -e 0 (target at most ${TARGET}×): ${value <= TARGET ? "met" : "MISSED"}`
      })
    }
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}
