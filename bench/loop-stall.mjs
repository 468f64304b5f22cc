// Preloaded into a core-server process by startup.bench.ts (`node --import`): measures the event
// loop's longest stall once the port is bound. A 10 ms interval records each late tick (the gap
// beyond 10 ms) and `monitorEventLoopDelay` the delay histogram, from the `starting` log line (the
// port is bound) to one second after `listening` (ready); the figures go to
// `CORE_BENCH_LOOP_STALL_FILE` as JSON. Only the main thread measures (workers inherit --import).
import { writeFileSync } from "node:fs"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { isMainThread } from "node:worker_threads"

const file = process.env.CORE_BENCH_LOOP_STALL_FILE
if (isMainThread && file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 })
  let startedAt
  let readyAt
  let startedMicros
  let last = performance.now()
  const stalls = []
  setInterval(() => {
    const now = performance.now()
    // Only what falls after the port is bound counts: a tick due before it is due at `startedAt`.
    if (startedAt !== undefined) {
      const due = Math.max(last + 10, startedAt)
      stalls.push({ at: Math.round(due - startedAt), ms: Math.max(0, Math.round(now - due)) })
    }
    last = now
  }, 10).unref()
  const write = process.stdout.write.bind(process.stdout)
  process.stdout.write = (chunk, ...rest) => {
    const text = String(chunk)
    if (startedAt === undefined && text.includes('"message":"starting"')) {
      startedAt = performance.now()
      startedMicros = Number(process.hrtime.bigint() / 1000n)
      histogram.enable()
    } else if (startedAt !== undefined && readyAt === undefined && text.includes('"message":"listening"')) {
      readyAt = performance.now()
      setTimeout(() => {
        histogram.disable()
        const top = [...stalls].sort((a, b) => b.ms - a.ms).slice(0, 5)
        writeFileSync(file, JSON.stringify({
          maxStallMs: top[0]?.ms ?? 0,
          histogramMaxMs: Math.round(histogram.max / 1e6),
          boundToReadyMs: Math.round(readyAt - startedAt),
          // On the clock of a --cpu-prof profile's timestamps, to find a stall in it.
          startedMicros,
          top
        }))
      }, 1_000).unref()
    }
    return write(chunk, ...rest)
  }
}
