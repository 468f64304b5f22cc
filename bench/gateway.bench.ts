import { fileURLToPath } from "node:url"
import { durations, type Figures } from "./Figures.js"
import { expectOk, load, type Measured, medianOf } from "./gateway-load.js"
import { profileFile, topSelfTime, written } from "./gateway-profile.js"
import { startTarget, type Target } from "./Load.js"

const CONNECTIONS = 64

/**
 * Rounds unless `BENCH_ROUNDS` says otherwise: on a shared 2-core machine one target's CPU cost
 * moves by a third between runs minutes apart, and the part 2 margin is a few percent.
 */
const GATEWAY_ROUNDS = 3
const script = fileURLToPath(new URL("./gateway-targets.ts", import.meta.url))

const PING = "/ping"
const GATEWAY_PING = "/api/v1/platforms/ping"
const SESSION = "/api/core/session"
const GATEWAY_SESSION = "/api/v1/iam/api/core/session"

/** One measured row: what was loaded, and which of its CPU figures belong to which process. */
interface Row {
  readonly label: string
  /** CPU µs/req of the process answering the load (`undefined` where it is the identity service itself). */
  readonly proxyCpu: number | undefined
  /** CPU µs/req of the identity service process behind it, when it runs apart. */
  readonly iamCpu: number | undefined
  readonly measured: Measured
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const isPong = (body: unknown) => (body as { pong?: unknown }).pong === true
const isOwnerSession = (body: unknown) => (body as { role?: unknown }).role === "owner"

/** The gateway targets whose CPU profiles the figures summarise when `BENCH_CPU_PROF` is set. */
const PROFILED = new Set(["gateway", "gateway-http"])
const profiled: Array<string> = []

/** Start a target, check its first answer, load it, and stop it. */
const measureTarget = async (
  name: string,
  path: string,
  options: { readonly env?: Record<string, string>; readonly token?: string; readonly behind?: Target; readonly accepts: (body: unknown) => boolean }
): Promise<{ readonly measured: Measured; readonly token: string | undefined }> => {
  const target = await startTarget(script, name, options.env)
  const profiles = process.env.BENCH_CPU_PROF
  if (profiles !== undefined && PROFILED.has(name)) profiled.push(profileFile(profiles, name, target.pid))
  try {
    const token = options.token ?? target.words[0]
    const headers = token === undefined ? {} : bearer(token)
    const url = `http://127.0.0.1:${target.port}${path}`
    await expectOk(url, headers, options.accepts)
    const watch = options.behind === undefined ? [target.pid] : [target.pid, options.behind.pid]
    return { measured: await load(url, { connections: CONNECTIONS, headers, watch }), token }
  } finally {
    target.stop()
  }
}

/** Issue part 1: the all-in-one gateway (identity in process) against the same route served directly. */
const inProcessRound = async (): Promise<Record<"direct" | "gateway", Measured>> => {
  const gateway = await measureTarget("gateway", GATEWAY_PING, { accepts: isPong })
  const direct = await measureTarget("direct", PING, { token: gateway.token, accepts: isPong })
  return { direct: direct.measured, gateway: gateway.measured }
}

/**
 * Issue part 2: one identity service process; loaded directly, then through the gateway and
 * through the Fastify reference (in alternating order by round), each proxy in its own process.
 */
const overHttpRound = async (round: number): Promise<Record<"iam" | "gatewayHttp" | "fastify", Measured>> => {
  const iam = await startTarget(script, "iam")
  try {
    const token = iam.words[0]
    const iamUrl = `http://127.0.0.1:${iam.port}`
    await expectOk(`${iamUrl}${SESSION}`, bearer(token), isOwnerSession)
    const direct = await load(`${iamUrl}${SESSION}`, { connections: CONNECTIONS, headers: bearer(token), watch: [iam.pid] })
    const proxy = (name: string) =>
      measureTarget(name, GATEWAY_SESSION, { env: { CORE_UPSTREAM_IAM_URL: iamUrl }, token, behind: iam, accepts: isOwnerSession })
    const first = round % 2 === 0 ? "gateway-http" : "fastify"
    const second = first === "fastify" ? "gateway-http" : "fastify"
    const measured = { [first]: (await proxy(first)).measured, [second]: (await proxy(second)).measured }
    return { iam: direct, gatewayHttp: measured["gateway-http"], fastify: measured.fastify }
  } finally {
    iam.stop()
  }
}

const fixed = (value: number | undefined, digits = 0) => (value === undefined ? "n/a" : value.toFixed(digits))
const verdict = (holds: boolean) => (holds ? "holds" : "DOES NOT HOLD  ← BELOW TARGET")

/** The top self-time functions of each gateway profile of this run, as lines of the figures. */
const profileSummary = async (): Promise<ReadonlyArray<string>> => {
  const lines: Array<string> = []
  for (const file of profiled) {
    if (!(await written(file))) {
      lines.push(`no profile written at ${file}`)
      continue
    }
    lines.push(`CPU profile ${file} (profiling slows the targets: ignore this run's figures), top self time:`)
    lines.push(...(await topSelfTime(file, 15)).map((line) => `   ${line}`))
  }
  return lines
}

/**
 * The gateway's cost, with references measured in the same run (docs/decisions/0165):
 * 1. an authenticated request (session bearer, credential cache warm) through the all-in-one
 *    gateway to a trivial in-process route, against that route served without the gateway
 *    (targets: ≥ 0.7 of its throughput, p99 ≤ 1.5 × its p99);
 * 2. `GET /api/v1/iam/api/core/session` through the gateway to the identity service in its own
 *    process, against Fastify 5 + `@fastify/reply-from` doing the same cached bearer check in
 *    front of the same process (target: throughput ratio ≥ 1.0).
 * Each row also gives the CPU time per request of the process under load (and of the identity
 * service behind a proxy), steadier than req/s on a shared machine. With `BENCH_CPU_PROF=<dir>`
 * the targets write CPU profiles there and the figures end with the gateways' top self-time functions.
 */
export const run = async (): Promise<Figures> => {
  const { duration, warmup, rounds } = durations(GATEWAY_ROUNDS)
  profiled.length = 0
  const inProcess: Array<Record<"direct" | "gateway", Measured>> = []
  const overHttp: Array<Record<"iam" | "gatewayHttp" | "fastify", Measured>> = []
  for (let round = 0; round < rounds; round++) {
    inProcess.push(await inProcessRound())
    overHttp.push(await overHttpRound(round))
  }
  const direct = medianOf(inProcess.map((r) => r.direct))
  const gateway = medianOf(inProcess.map((r) => r.gateway))
  const iam = medianOf(overHttp.map((r) => r.iam))
  const gatewayHttp = medianOf(overHttp.map((r) => r.gatewayHttp))
  const fastify = medianOf(overHttp.map((r) => r.fastify))

  const rows: ReadonlyArray<Row> = [
    { label: "1. registry GET /ping served directly (Listener)", proxyCpu: direct.cpuPerRequest[0], iamCpu: undefined, measured: direct },
    { label: "1. same route through Assemble.listener, session bearer", proxyCpu: gateway.cpuPerRequest[0], iamCpu: undefined, measured: gateway },
    { label: "2. iam GET /api/core/session directly", proxyCpu: undefined, iamCpu: iam.cpuPerRequest[0], measured: iam },
    { label: "2. through the gateway (HttpUpstream)", proxyCpu: gatewayHttp.cpuPerRequest[0], iamCpu: gatewayHttp.cpuPerRequest[1], measured: gatewayHttp },
    { label: "2. through Fastify + @fastify/reply-from", proxyCpu: fastify.cpuPerRequest[0], iamCpu: fastify.cpuPerRequest[1], measured: fastify }
  ]

  const cpuRatio = (reference: number | undefined, subject: number | undefined) =>
    reference === undefined || subject === undefined ? undefined : reference / subject
  const throughput = gateway.rps / direct.rps
  const p99Ratio = gateway.p99 / direct.p99
  const versusFastify = gatewayHttp.rps / fastify.rps
  const window = `${warmup} s warm-up + ${duration} s per target${rounds > 1 ? `, median of ${rounds} rounds` : ""}`
  return {
    title: `Gateway: authenticated requests (session bearer, cache warm), ${CONNECTIONS} connections, ${window}, 127.0.0.1`,
    columns: ["target", "req/s", "p50 ms", "p99 ms", "CPU µs/req", "iam CPU µs/req", "failed"],
    rows: rows.map(({ iamCpu, label, measured, proxyCpu }) => [
      label,
      Math.round(measured.rps),
      measured.p50,
      measured.p99,
      fixed(proxyCpu),
      fixed(iamCpu),
      measured.failures
    ]),
    checks: [
      `1. gateway / direct = ${throughput.toFixed(2)} by throughput (target ≥ 0.7): ${verdict(throughput >= 0.7)}`,
      `   by CPU per request (direct / gateway, the ratio each would have with a core to itself) = ${
        fixed(cpuRatio(direct.cpuPerRequest[0], gateway.cpuPerRequest[0]), 2)
      }`,
      `1. gateway p99 / direct p99 = ${p99Ratio.toFixed(2)} (target ≤ 1.5): ${verdict(p99Ratio <= 1.5)}`,
      `2. gateway / Fastify = ${versusFastify.toFixed(2)} by throughput (target ≥ 1.0): ${verdict(versusFastify >= 1)}`,
      `   by the proxy's CPU per request (Fastify / gateway) = ${
        fixed(cpuRatio(fastify.cpuPerRequest[0], gatewayHttp.cpuPerRequest[0]), 2)
      }; p99 gateway / Fastify = ${(gatewayHttp.p99 / fastify.p99).toFixed(2)}`,
      `every target answered 200 to the bearer before the load (an owner's session on the identity routes); ${
        rows.every((row) => row.measured.failures === 0) ? "no request failed under load" : "SOME REQUESTS FAILED under load (see the failed column)"
      }`,
      ...(await profileSummary())
    ]
  }
}
