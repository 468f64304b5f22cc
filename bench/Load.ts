import autocannon from "autocannon"
import { spawn } from "node:child_process"
import { readFile } from "node:fs/promises"
import { durations, median } from "./Figures.js"

/** What one load run measured. */
export interface Measured {
  readonly rps: number
  readonly p99: number
  readonly failures: number
  /** Server CPU time (user + system) per completed request, in µs; undefined where `/proc` is missing. */
  readonly cpuPerRequest: number | undefined
}

/** A target server in its own process; it printed its port (and any extra words) on its first line. */
export interface Target {
  readonly pid: number
  readonly port: string
  readonly words: ReadonlyArray<string>
  readonly stop: () => void
}

/** Start `script target` with the source condition and wait for the line that names its port. */
export const startTarget = async (script: string, target: string, env?: Record<string, string>): Promise<Target> => {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", script, target], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env }
  })
  const [port, ...words] = await new Promise<Array<string>>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`target ${target} exited with ${code}`)))
    child.stdout.once("data", (data: Buffer) => (child.stdout.resume(), resolve(data.toString().trim().split(" "))))
  })
  child.removeAllListeners("exit")
  return { pid: child.pid!, port, words, stop: () => void child.kill("SIGTERM") }
}

const TICKS_PER_SECOND = 100

/** User + system CPU time of a process in µs, from `/proc/<pid>/stat` (Linux). */
export const cpuTime = async (pid: number): Promise<number | undefined> => {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND
  } catch {
    return undefined
  }
}

/**
 * Load a URL of a target from this process (127.0.0.1 only): a warm-up, then the measured window,
 * with the target's CPU time over that window.
 */
export const load = async (
  target: Target,
  path: string,
  options: { readonly connections: number; readonly headers?: Record<string, string> }
): Promise<Measured> => {
  const { duration, warmup } = durations()
  const url = `http://127.0.0.1:${target.port}${path}`
  const base = { url, connections: options.connections, headers: options.headers ?? {} }
  await autocannon({ ...base, duration: warmup })
  const before = await cpuTime(target.pid)
  const result = await autocannon({ ...base, duration })
  const after = await cpuTime(target.pid)
  const completed = result.requests.total
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    failures: result.errors + result.timeouts + result.non2xx,
    cpuPerRequest: before === undefined || after === undefined || completed === 0 ? undefined : (after - before) / completed
  }
}

/** What several rounds of one target measured, as their medians (failures summed). */
export const medianOf = (runs: ReadonlyArray<Measured>): Measured => {
  const cpu = runs.map((m) => m.cpuPerRequest).filter((c): c is number => c !== undefined)
  return {
    rps: median(runs.map((m) => m.rps)),
    p99: median(runs.map((m) => m.p99)),
    failures: runs.reduce((sum, m) => sum + m.failures, 0),
    cpuPerRequest: cpu.length === 0 ? undefined : median(cpu)
  }
}

/** The server CPU time per request of `b` over `a` (how many times cheaper `a` is), or `n/a`. */
export const cpuRatio = (a: Measured, b: Measured): string =>
  a.cpuPerRequest === undefined || b.cpuPerRequest === undefined ? "n/a" : (b.cpuPerRequest / a.cpuPerRequest).toFixed(2)
