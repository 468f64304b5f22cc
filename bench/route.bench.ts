import { fileURLToPath } from "node:url"
import { durations, type Figures } from "./Figures.js"
import { cpuRatio as cpuRatioOf, load, type Measured, medianOf, startTarget } from "./Load.js"

/** What is measured: a target (bench/route-targets.ts), the path it is loaded on and its headers. */
const RUNS = [
  { key: "a", target: "route-node", path: "/ping", label: "(a) GET /ping, RouteNode.listener" },
  { key: "b", target: "platform-node", path: "/ping", label: "(b) GET /ping, Route.router on @effect/platform-node" },
  { key: "b-", target: "platform-node-untraced", path: "/ping", label: "    the same, its server span off" },
  { key: "c", target: "hono", path: "/ping", label: "(c) GET /ping, Hono on @hono/node-server" },
  { key: "d", target: "node-http", path: "/ping", label: "(d) GET /ping, bare node:http" },
  { key: "a-caller", target: "route-node", path: "/me", label: "(a) GET /me with a caller, RouteNode.listener", bearer: true },
  { key: "b-caller", target: "platform-node", path: "/me", label: "(b) GET /me with a caller, @effect/platform-node", bearer: true }
] as const

const CONNECTIONS = 64
const script = fileURLToPath(new URL("./route-targets.ts", import.meta.url))
const BEARER = { authorization: "Bearer usr_bench" }

/** Run one target in its own process, so the load generator never shares its event loop. */
const measure = async (run: (typeof RUNS)[number]): Promise<Measured> => {
  const target = await startTarget(script, run.target)
  try {
    return await load(target, run.path, { connections: CONNECTIONS, headers: "bearer" in run ? BEARER : {} })
  } finally {
    target.stop()
  }
}

/**
 * A catalogued route (`Route.handle`, decoded and encoded from its declaration) served by the
 * kernel's Node runner, by `Route.router` on `@effect/platform-node`, and — for scale — the same
 * answer from Hono and bare `node:http`; then a route that resolves a caller, on the first two.
 */
export const run = async (): Promise<Figures> => {
  const { duration, warmup, rounds } = durations()
  const samples = new Map<string, Array<Measured>>(RUNS.map(({ key }) => [key, []]))
  for (let round = 0; round < rounds; round++) {
    for (const run of RUNS) samples.get(run.key)!.push(await measure(run))
  }
  const measured = new Map([...samples].map(([key, runs]) => [key, medianOf(runs)] as const))
  const rps = (key: string) => measured.get(key)!.rps
  const cpuRatio = (a: string, b: string) => cpuRatioOf(measured.get(a)!, measured.get(b)!)
  const target = (value: number) => `${value.toFixed(2)} (target ≥ 1.5)${value >= 1.5 ? "" : "  ← BELOW TARGET"}`
  const window = `${warmup} s warm-up + ${duration} s per target${rounds > 1 ? `, median of ${rounds} rounds` : ""}`
  return {
    title: `Route: a catalogued GET → small JSON, ${CONNECTIONS} connections, ${window}, 127.0.0.1`,
    columns: ["target", "req/s", "p99 ms", "× node:http", "CPU µs/req", "failed"],
    rows: RUNS.map(({ key, label }) => {
      const m = measured.get(key)!
      const cpu = m.cpuPerRequest === undefined ? "n/a" : m.cpuPerRequest.toFixed(1)
      return [label, Math.round(m.rps), m.p99, (m.rps / rps("d")).toFixed(2), cpu, m.failures]
    }),
    checks: [
      `RouteNode / @effect/platform-node = ${target(rps("a") / rps("b"))}; by server CPU per request ${cpuRatio("a", "b")}`,
      `  against the platform with its span off = ${(rps("a") / rps("b-")).toFixed(2)}; by CPU ${cpuRatio("a", "b-")}`,
      `with a caller: RouteNode / @effect/platform-node = ${target(rps("a-caller") / rps("b-caller"))}; by CPU ${cpuRatio("a-caller", "b-caller")}`,
      `RouteNode / Hono = ${(rps("a") / rps("c")).toFixed(2)} (by CPU ${cpuRatio("a", "c")}); RouteNode / bare node:http = ${
        (rps("a") / rps("d")).toFixed(2)
      } (by CPU ${cpuRatio("a", "d")})`
    ]
  }
}
