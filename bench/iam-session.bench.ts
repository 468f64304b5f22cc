import autocannon from "autocannon"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { durations, type Figures } from "./Figures.js"

const CONNECTIONS = 64

interface Measured {
  readonly rps: number
  readonly p99: number
  readonly failures: number
  /** CPU time the server process spent per request answered, in microseconds. */
  readonly cpuPerRequest: number
}

/** Run one target in its own process and load it with autocannon (with the bearer it prints, if any). */
const measure = async (target: string, path: string): Promise<Measured> => {
  const script = fileURLToPath(new URL("./iam-session-targets.ts", import.meta.url))
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", script, target], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, LOG_LEVEL: "error" }
  })
  const lines: Array<string> = []
  const waiting: Array<(line: string) => void> = []
  let buffered = ""
  child.stdout.setEncoding("utf8").on("data", (data: string) => {
    buffered += data
    let newline = buffered.indexOf("\n")
    while (newline !== -1) {
      const line = buffered.slice(0, newline).trim()
      buffered = buffered.slice(newline + 1)
      const next = waiting.shift()
      if (next === undefined) lines.push(line)
      else next(line)
      newline = buffered.indexOf("\n")
    }
  })
  const nextLine = () =>
    new Promise<string>((resolve, reject) => {
      const known = lines.shift()
      if (known !== undefined) return resolve(known)
      child.once("exit", (code) => reject(new Error(`target ${target} exited with ${code}`)))
      waiting.push(resolve)
    })
  try {
    const [port, token] = (await nextLine()).split(" ")
    const { duration, warmup } = durations()
    const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` }
    const url = `http://127.0.0.1:${port}${path}`
    await autocannon({ url, connections: CONNECTIONS, duration: warmup, headers })
    child.stdin.write("mark\n")
    const result = await autocannon({ url, connections: CONNECTIONS, duration, headers })
    child.stdin.write("cpu\n")
    const cpu = Number(await nextLine())
    const answered = result.requests.average * duration
    return {
      rps: result.requests.average,
      p99: result.latency.p99,
      failures: result.errors + result.timeouts + result.non2xx,
      cpuPerRequest: answered > 0 ? cpu / answered : Number.NaN
    }
  } finally {
    child.removeAllListeners("exit")
    child.kill("SIGTERM")
  }
}

/**
 * `GET /api/core/session` with a valid bearer (one statement on the token hash's index, permissions
 * cached) against the foundation's trivial route, in the same run; on PostgreSQL too when
 * `CORE_TEST_DATABASE_URL` is set. Target: at least 0.5 of the trivial route's throughput.
 * Throughput swings with whatever else the machine runs; the server process's CPU time per request
 * does not, so both ratios are printed (throughput, and trivial CPU / session CPU: the throughput
 * ratio the routes would have if each had the machine to itself).
 */
export const run = async (): Promise<Figures> => {
  /** Each target with the trivial route it is compared with: on the kernel's Node runner (the target), and on `@effect/platform-node`. */
  const targets: Array<readonly [string, string, string, string | undefined]> = [
    ["kernel-trivial", "/", "trivial catalogued GET / on RouteNode.listener", undefined],
    ["kernel-session-pglite", "/api/core/session", "GET /api/core/session on RouteNode.listener, PGlite", "kernel-trivial"],
    ["trivial", "/", "trivial GET / via @core/http/node", undefined],
    ["core-session-pglite", "/api/core/session", "GET /api/core/session via @core/http/node, PGlite", "trivial"],
    ...(process.env.CORE_TEST_DATABASE_URL
      ? [["core-session-pg", "/api/core/session", "GET /api/core/session via @core/http/node, PostgreSQL", "trivial"] as const]
      : [])
  ]
  const measured = new Map<string, Measured>()
  for (const [target, path] of targets) measured.set(target, await measure(target, path))
  const ratio = (target: string, reference: string) => measured.get(target)!.rps / measured.get(reference)!.rps
  const cpuRatio = (target: string, reference: string) => measured.get(reference)!.cpuPerRequest / measured.get(target)!.cpuPerRequest
  const { duration, warmup } = durations()
  return {
    title: `Identity: GET /api/core/session with a valid bearer, ${CONNECTIONS} connections, ${warmup} s warm-up + ${duration} s per target`,
    columns: ["target", "req/s", "p99 ms", "× its trivial", "CPU µs/req", "× its trivial (CPU)", "failed"],
    rows: targets.map(([target, , label, reference]) => {
      const m = measured.get(target)!
      const against = reference ?? target
      return [label, Math.round(m.rps), m.p99, ratio(target, against).toFixed(2), Math.round(m.cpuPerRequest), cpuRatio(target, against).toFixed(2), m.failures]
    }),
    checks: targets.flatMap(([target, , label, reference]) => {
      if (reference === undefined) return []
      const goal = reference === "kernel-trivial" ? 0.6 : 0.5
      const best = Math.max(ratio(target, reference), cpuRatio(target, reference))
      return [
        `${label} / its trivial route = ${ratio(target, reference).toFixed(2)} by throughput, ${cpuRatio(target, reference).toFixed(2)} by CPU per request (target ≥ ${goal})${
          best >= goal ? "" : "  ← BELOW TARGET"
        }`
      ]
    })
  }
}
