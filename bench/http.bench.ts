import { fileURLToPath } from "node:url"
import { durations, type Figures } from "./Figures.js"
import { cpuRatio as cpuRatioOf, load, type Measured, medianOf, startTarget } from "./Load.js"

const TARGETS = [
  ["core-node", "Effect app via @core/http/node"],
  ["platform-node", "same app via @effect/platform-node directly"],
  ["web-on-node", "same app via the web handler on node:http"],
  ["hono", "Hono via @hono/node-server"],
  ["node-http", "bare node:http"]
] as const

const CONNECTIONS = 64
const script = fileURLToPath(new URL("./http-targets.ts", import.meta.url))

/** Run one target in its own process, so the load generator never shares its event loop. */
const measure = async (name: string): Promise<Measured> => {
  const target = await startTarget(script, name)
  try {
    return await load(target, "/", { connections: CONNECTIONS })
  } finally {
    target.stop()
  }
}

/**
 * Requests per second and p99 latency of a trivial `GET /` on each way of serving it, one target
 * at a time, with ratios taken within this run (absolute numbers depend on the machine).
 */
export const run = async (): Promise<Figures> => {
  const { duration, warmup, rounds } = durations()
  const samples = new Map<string, Array<Measured>>(TARGETS.map(([target]) => [target, []]))
  for (let round = 0; round < rounds; round++) {
    for (const [target] of TARGETS) samples.get(target)!.push(await measure(target))
  }
  const measured = new Map([...samples].map(([target, runs]) => [target, medianOf(runs)] as const))
  const ratio = (a: string, b: string) => measured.get(a)!.rps / measured.get(b)!.rps
  const cpuRatio = (a: string, b: string) => cpuRatioOf(measured.get(a)!, measured.get(b)!)
  const nativeRatio = ratio("core-node", "platform-node")
  const window = `${warmup} s warm-up + ${duration} s per target${rounds > 1 ? `, median of ${rounds} rounds` : ""}`
  return {
    title: `HTTP: GET / → small JSON, ${CONNECTIONS} connections, ${window}, 127.0.0.1`,
    columns: ["target", "req/s", "p99 ms", "× node:http", "CPU µs/req", "failed"],
    rows: TARGETS.map(([target, label]) => {
      const m = measured.get(target)!
      const cpu = m.cpuPerRequest === undefined ? "n/a" : m.cpuPerRequest.toFixed(1)
      return [label, Math.round(m.rps), m.p99, ratio(target, "node-http").toFixed(2), cpu, m.failures]
    }),
    checks: [
      `native Node path / @effect/platform-node = ${nativeRatio.toFixed(2)} (target ≥ 0.9)${nativeRatio >= 0.9 ? "" : "  ← BELOW TARGET"}`,
      `  the same by server CPU time per request (steadier on a busy machine) = ${cpuRatio("core-node", "platform-node")}`,
      `web handler on node:http / native Node path = ${ratio("web-on-node", "core-node").toFixed(2)} (by CPU per request ${cpuRatio("web-on-node", "core-node")})`
    ]
  }
}
