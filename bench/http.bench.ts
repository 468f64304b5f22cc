import autocannon from "autocannon"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { durations, type Figures } from "./Figures.js"

const TARGETS = [
  ["core-node", "Effect app via @core/http/node"],
  ["platform-node", "same app via @effect/platform-node directly"],
  ["web-on-node", "same app via the web handler on node:http"],
  ["hono", "Hono via @hono/node-server"],
  ["node-http", "bare node:http"]
] as const

const CONNECTIONS = 64

interface Measured {
  readonly rps: number
  readonly p99: number
  readonly failures: number
}

/** Run one target in its own process, so the load generator never shares its event loop. */
const measure = async (target: string): Promise<Measured> => {
  const script = fileURLToPath(new URL("./http-targets.ts", import.meta.url))
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", script, target], {
    stdio: ["ignore", "pipe", "inherit"]
  })
  try {
    const port = await new Promise<string>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`target ${target} exited with ${code}`)))
      child.stdout.once("data", (data: Buffer) => (child.stdout.resume(), resolve(data.toString().trim())))
    })
    const { duration, warmup } = durations()
    const result = await autocannon({
      url: `http://127.0.0.1:${port}/`,
      connections: CONNECTIONS,
      duration,
      warmup: { connections: CONNECTIONS, duration: warmup }
    })
    return { rps: result.requests.average, p99: result.latency.p99, failures: result.errors + result.timeouts + result.non2xx }
  } finally {
    child.removeAllListeners("exit")
    child.kill("SIGTERM")
  }
}

/**
 * Requests per second and p99 latency of a trivial `GET /` on each way of serving it, one target
 * at a time, with ratios taken within this run (absolute numbers depend on the machine).
 */
export const run = async (): Promise<Figures> => {
  const measured = new Map<string, Measured>()
  for (const [target] of TARGETS) measured.set(target, await measure(target))
  const ratio = (a: string, b: string) => measured.get(a)!.rps / measured.get(b)!.rps
  const { duration, warmup } = durations()
  const nativeRatio = ratio("core-node", "platform-node")
  return {
    title: `HTTP: GET / → small JSON, ${CONNECTIONS} connections, ${warmup} s warm-up + ${duration} s per target, 127.0.0.1`,
    columns: ["target", "req/s", "p99 ms", "× node:http", "failed"],
    rows: TARGETS.map(([target, label]) => {
      const m = measured.get(target)!
      return [label, Math.round(m.rps), m.p99, ratio(target, "node-http").toFixed(2), m.failures]
    }),
    checks: [
      `native Node path / @effect/platform-node = ${nativeRatio.toFixed(2)} (target ≥ 0.9)${nativeRatio >= 0.9 ? "" : "  ← BELOW TARGET"}`,
      `web handler on node:http / native Node path = ${ratio("web-on-node", "core-node").toFixed(2)}`
    ]
  }
}
