import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type Figures, median } from "./Figures.js"

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 3)

const bin = fileURLToPath(new URL("../packages/server/bin/core-server.mjs", import.meta.url))
const preload = fileURLToPath(new URL("./loop-stall.mjs", import.meta.url))

interface Sample {
  readonly readyMs: number
  readonly maxStallMs: number
  readonly histogramMaxMs: number
  readonly boundToReadyMs: number
  readonly top: ReadonlyArray<{ readonly at: number; readonly ms: number }>
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
  })

/**
 * One `core-server start` on `dataDir` (PORT=0) with the stall preload: the wall time from spawn to
 * the first `/ready` 200 (polled every 20 ms from this process), and what the preload measured.
 */
const once = async (dataDir: string, staging: string): Promise<Sample> => {
  const out = join(staging, `stall-${Date.now()}.json`)
  const started = performance.now()
  const child = spawn(process.execPath, ["--import", preload, bin, "start"], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: "development",
      PORT: "0",
      CORE_DATA_DIR: dataDir,
      CORE_BENCH_LOOP_STALL_FILE: out
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  try {
    let port: number | undefined
    let readyMs: number | undefined
    while (readyMs === undefined) {
      if (child.exitCode !== null || performance.now() - started > 120_000) {
        throw new Error(`core-server did not get ready:\n${stdout}\n${stderr}`)
      }
      port ??= Number(/"message":"starting".*?"port":(\d+)/.exec(stdout)?.[1] ?? /"port":(\d+).*?"message":"starting"/.exec(stdout)?.[1]) || undefined
      if (port !== undefined) {
        const answer = await fetch(`http://127.0.0.1:${port}/ready`).catch(() => undefined)
        if (answer?.status === 200) readyMs = performance.now() - started
        await answer?.arrayBuffer()
      }
      if (readyMs === undefined) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const deadline = performance.now() + 10_000
    while (true) {
      try {
        return { readyMs: Math.round(readyMs), ...(JSON.parse(readFileSync(out, "utf8")) as Omit<Sample, "readyMs">) }
      } catch {
        if (performance.now() > deadline) throw new Error(`no stall figures:\n${stdout}\n${stderr}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
  } finally {
    await stop(child)
  }
}

/**
 * `core-server start` (the launcher in the repository, as `npm start` runs it) on a fresh data
 * directory, then again on the one it made, `BENCH_STARTUP_RUNS` times (default 3): the longest
 * event-loop stall between binding the port and one second after ready, and the time to `/ready`
 * (docs/decisions/0202, 0210). A first untimed run builds the launcher's bundle.
 */
export const run = async (): Promise<Figures> => {
  const staging = mkdtempSync(join(tmpdir(), "core-startup-bench-"))
  try {
    await once(join(staging, "warm"), staging)
    const fresh: Array<Sample> = []
    const existing: Array<Sample> = []
    for (let round = 0; round < RUNS; round++) {
      const dataDir = join(staging, `data-${round}`)
      fresh.push(await once(dataDir, staging))
      existing.push(await once(dataDir, staging))
    }
    const row = (name: string, samples: ReadonlyArray<Sample>) => [
      name,
      median(samples.map((s) => s.maxStallMs)),
      Math.max(...samples.map((s) => s.maxStallMs)),
      median(samples.map((s) => s.histogramMaxMs)),
      median(samples.map((s) => s.readyMs)),
      Math.max(...samples.map((s) => s.readyMs))
    ]
    if (process.env.BENCH_STARTUP_VERBOSE) console.log(JSON.stringify({ fresh, existing }, null, 1))
    return {
      title: `core-server start, ${RUNS} runs each: longest event-loop stall once the port is bound (10 ms interval) and time to /ready`,
      columns: ["data directory", "stall median ms", "stall max ms", "loop delay max ms", "/ready median ms", "/ready max ms"],
      rows: [row("fresh", fresh), row("existing", existing)],
      checks: [
        `longest stall ≤ 100 ms: ${[...fresh, ...existing].every((s) => s.maxStallMs <= 100) ? "yes" : "no"}`,
        `fresh directory ready in < 10 s: ${fresh.every((s) => s.readyMs < 10_000) ? "yes" : "no"}`
      ]
    }
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}
