import autocannon from "autocannon"
import { durations, median } from "./Figures.js"
import { cpuTime } from "./Load.js"

/** What one load run of the gateway bench measured. */
export interface Measured {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  /** Non-2xx answers, errors and timeouts during the measured window. */
  readonly failures: number
  /** CPU time (user + system) per completed request of each watched process, in µs; `undefined` without `/proc`. */
  readonly cpuPerRequest: ReadonlyArray<number | undefined>
}

/**
 * Send one request and insist on a 200 (and, when given, a body `accepts` recognises), so that a
 * refused bearer or a broken route stops the bench instead of being measured; it also fills the
 * gateway's credential cache before the warm-up.
 */
export const expectOk = async (
  url: string,
  headers: Record<string, string>,
  accepts: (body: unknown) => boolean = () => true
): Promise<void> => {
  const response = await fetch(url, { headers })
  const text = await response.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // not JSON: `accepts` sees the text
  }
  if (response.status !== 200 || !accepts(body)) throw new Error(`GET ${url} answered ${response.status} ${text.slice(0, 300)}`)
}

/**
 * Load a URL on 127.0.0.1 from this process: a warm-up, then the measured window, with the CPU
 * time each watched process (the target, and any process behind it) spent over that window.
 */
export const load = async (
  url: string,
  options: { readonly connections: number; readonly headers: Record<string, string>; readonly watch: ReadonlyArray<number> }
): Promise<Measured> => {
  const { duration, warmup } = durations()
  const base = { url, connections: options.connections, headers: options.headers }
  await autocannon({ ...base, duration: warmup })
  const before = await Promise.all(options.watch.map(cpuTime))
  const result = await autocannon({ ...base, duration })
  const after = await Promise.all(options.watch.map(cpuTime))
  const completed = result.requests.total
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.errors + result.timeouts + result.non2xx,
    cpuPerRequest: options.watch.map((_, i) => {
      const [start, end] = [before[i], after[i]]
      return start === undefined || end === undefined || completed === 0 ? undefined : (end - start) / completed
    })
  }
}

/** The median of each figure over rounds (failures are summed: every one counts). */
export const medianOf = (runs: ReadonlyArray<Measured>): Measured => {
  const cpu = (i: number) => {
    const known = runs.map((run) => run.cpuPerRequest[i]).filter((value): value is number => value !== undefined)
    return known.length === 0 ? undefined : median(known)
  }
  return {
    rps: median(runs.map((run) => run.rps)),
    p50: median(runs.map((run) => run.p50)),
    p99: median(runs.map((run) => run.p99)),
    failures: runs.reduce((sum, run) => sum + run.failures, 0),
    cpuPerRequest: runs[0].cpuPerRequest.map((_, i) => cpu(i))
  }
}
