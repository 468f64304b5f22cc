import { type ChildProcess, execFile, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { type AddressInfo, createServer } from "node:net"
import { hostname, tmpdir } from "node:os"
import { dirname, join } from "node:path"

/** The services, each `core-server serve --service <name>` in its own process. */
export const SERVICES = ["iam", "registry", "stacks", "provisioning", "billing", "cli", "vault"] as const

/** One of {@link SERVICES}. */
export type ServiceName = (typeof SERVICES)[number]

/** Where the processes keep their state, and how the gateways are tuned. */
export interface ClusterOptions {
  /** PostgreSQL shared by every process (`DATABASE_URL`). */
  readonly databaseUrl: string
  /** Redis shared by the gateways: rate limits and the credential cache (`REDIS_URL`). */
  readonly redisUrl: string
  /** The root secret every process shares (signs `X-Core-Identity`). @default a new random one */
  readonly secret?: string
  /** The static service key. @default a new random one */
  readonly staticKey?: string
  /**
   * The directory every process shares as `CORE_DATA_DIR`: the uploads the deploy backend receives
   * and the workers build, the local edge's sites the workers write and the provisioning service
   * serves. @default a new temporary directory, removed by `stop`
   */
  readonly dataDir?: string
  /** Ports of the two gateways and of each service. @default free ports */
  readonly ports?: { readonly gateways?: readonly [number, number]; readonly services?: Partial<Record<ServiceName, number>> }
  /** More environment for every process (e.g. `CORE_RATE_LIMIT_PER_MINUTE`). */
  readonly env?: Readonly<Record<string, string>>
  /** Called with each line a process prints (prefixed with its name). */
  readonly onLine?: (line: string) => void
}

/** One running process of the cluster. */
export interface Member {
  readonly name: string
  /** Its HTTP address (a worker has none: ""). */
  readonly url: string
  readonly child: ChildProcess
}

/** A provisioning worker: the name it claims jobs under (`locked_by` of the jobs it ran). */
export interface WorkerMember extends Member {
  readonly workerId: string
}

/** The running cluster. */
export interface Cluster {
  /** Each service's process, by name. */
  readonly services: Readonly<Record<ServiceName, Member>>
  /** The identity service (`services.iam`). */
  readonly iam: Member
  readonly gateways: readonly [Member, Member]
  readonly workers: readonly [WorkerMember, WorkerMember]
  readonly staticKey: string
  readonly dataDir: string
  /** Stop every process (SIGTERM, then SIGKILL after `graceMs`). */
  readonly stop: (graceMs?: number) => Promise<void>
}

const bin = join(dirname(createRequire(import.meta.url).resolve("@core/server/package.json")), "bin", "core-server.mjs")

const INHERITED = ["PATH", "HOME", "TMPDIR"]

/** `count` distinct ports free at this moment on 127.0.0.1 (held together while chosen, so none repeats). */
export const freePorts = async (count: number): Promise<Array<number>> => {
  const probes = await Promise.all(Array.from({ length: count }, () =>
    new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
      const server = createServer()
      server.once("error", reject)
      server.listen(0, "127.0.0.1", () => resolve(server))
    })))
  const ports = probes.map((probe) => (probe.address() as AddressInfo).port)
  await Promise.all(probes.map((probe) => new Promise((resolve) => probe.close(resolve))))
  return ports
}

/** What tells that a process is up: its `/ready` answering 200 on `port`, or a line it prints. */
export type Readiness = { readonly port: number } | { readonly line: RegExp }

/** Start `core-server …args` with `env` (and only `PATH`, `HOME`, `TMPDIR` of this process's); resolve once it is ready. */
export const launch = (
  name: string,
  readiness: Readiness,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  onLine: (line: string) => void,
  timeoutMs = 150_000
): Promise<Member> =>
  new Promise((resolve, reject) => {
    const inherited = Object.fromEntries(INHERITED.flatMap((key) => (process.env[key] === undefined ? [] : [[key, process.env[key]!]])))
    const child = spawn(process.execPath, [bin, ...args], { env: { ...inherited, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    const url = "port" in readiness ? `http://127.0.0.1:${readiness.port}` : ""
    let printed = ""
    let settled = false
    const fail = (message: string) => {
      if (settled) return
      settled = true
      child.kill("SIGKILL")
      reject(new Error(`${name}: ${message}\n${printed}`))
    }
    const succeed = () => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      child.removeAllListeners("exit")
      child.once("exit", (code, signal) => onLine(`[${name}] exited (${signal ?? `code ${code}`})`))
      resolve({ name, url, child })
    }
    const timer = setTimeout(() => fail(`not ready after ${timeoutMs} ms`), timeoutMs)
    child.on("exit", (code) => fail(`exited with code ${code}`))
    const watch = (stream: NodeJS.ReadableStream) => {
      let buffered = ""
      stream.setEncoding("utf8")
      stream.on("data", (chunk: string) => {
        buffered += chunk
        let newline = buffered.indexOf("\n")
        while (newline !== -1) {
          const line = buffered.slice(0, newline)
          buffered = buffered.slice(newline + 1)
          printed += `${line}\n`
          onLine(`[${name}] ${line}`)
          if ("line" in readiness && readiness.line.test(line)) succeed()
          newline = buffered.indexOf("\n")
        }
      })
    }
    const whenReady = async () => {
      while (!settled) {
        const ready = await fetch(`${url}/ready`).then((response) => response.status === 200, () => false)
        if (ready) return succeed()
        await new Promise((wait) => setTimeout(wait, 200))
      }
    }
    watch(child.stdout!)
    watch(child.stderr!)
    if ("port" in readiness) void whenReady()
  })

/** Stop one process: SIGTERM, then SIGKILL after `graceMs`. */
export const stopMember = (member: Member, graceMs: number): Promise<void> =>
  new Promise((resolve) => {
    if (member.child.exitCode !== null || member.child.signalCode !== null) return resolve()
    const force = setTimeout(() => member.child.kill("SIGKILL"), graceMs)
    member.child.once("exit", () => {
      clearTimeout(force)
      resolve()
    })
    member.child.kill("SIGTERM")
  })

/** Build `core-server`'s source bundle once, before a dozen processes would each build it at once. */
const warmUp = (env: Record<string, string>): Promise<void> =>
  new Promise((resolve, reject) =>
    execFile(process.execPath, [bin, "--version"], { env: { ...process.env, ...env }, timeout: 120_000 }, (error) =>
      error === null ? resolve() : reject(error)))

/**
 * Start Core as separate processes on one PostgreSQL, all at once: each service alone
 * (`core-server serve --service <name>`), two gateways (`core-server start`) that reach every
 * service through its `CORE_UPSTREAM_<SERVICE>_URL` and share Redis, and two provisioning workers
 * (`core-server worker`) that run every job (the provisioning service runs none:
 * `CORE_WORKER_CONCURRENCY=0`). They share `CORE_SECRET` (so each service trusts what either
 * gateway signs), the static key and `CORE_DATA_DIR` (uploads and the local edge's sites, on this
 * one machine). The gateways forward `/mcp` to the vault and the `*.localhost` sites to the
 * provisioning service.
 *
 * @example
 * const cluster = await startCluster({ databaseUrl, redisUrl })
 * await fetch(`${cluster.gateways[0].url}/api/v1/iam/api/core/session`, { headers: { authorization: `Bearer ${token}` } })
 * await cluster.stop()
 */
export const startCluster = async (options: ClusterOptions): Promise<Cluster> => {
  const staticKey = options.staticKey ?? randomBytes(24).toString("base64url")
  const ownDataDir = options.dataDir === undefined
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "core-multi-process-"))
  const free = await freePorts(2 + SERVICES.length)
  const portA = options.ports?.gateways?.[0] ?? free[0]!
  const portB = options.ports?.gateways?.[1] ?? free[1]!
  const servicePorts = Object.fromEntries(SERVICES.map((service, index) => [service, options.ports?.services?.[service] ?? free[2 + index]!])) as Record<ServiceName, number>
  const shared: Record<string, string> = {
    NODE_ENV: "development",
    DATABASE_URL: options.databaseUrl,
    CORE_SECRET: options.secret ?? randomBytes(32).toString("base64url"),
    CORE_STATIC_API_KEY: staticKey,
    CORE_DATA_DIR: dataDir,
    // The address people reach (mailed links, the device page) and the port the sites' URLs name.
    CORE_PUBLIC_URL: `http://localhost:${portA}`,
    PORT: String(portA),
    ...options.env
  }
  const onLine = options.onLine ?? (() => undefined)
  await warmUp(shared)

  const upstreams = Object.fromEntries(SERVICES.map((service) => [`CORE_UPSTREAM_${service.toUpperCase()}_URL`, `http://127.0.0.1:${servicePorts[service]}`]))
  const gatewayEnv = { ...shared, ...upstreams, REDIS_URL: options.redisUrl }
  const started: Array<Promise<Member>> = [
    ...SERVICES.map((service) =>
      launch(service, { port: servicePorts[service] }, ["serve", "--service", service, "--port", String(servicePorts[service])], {
        ...shared,
        CORE_WORKER_CONCURRENCY: "0"
      }, onLine)
    ),
    launch("gateway-a", { port: portA }, ["start"], { ...gatewayEnv, PORT: String(portA) }, onLine),
    launch("gateway-b", { port: portB }, ["start"], { ...gatewayEnv, PORT: String(portB) }, onLine),
    // "worker started" is an info line: shown whatever LOG_LEVEL the rest runs with.
    ...["worker-1", "worker-2"].map((name) => launch(name, { line: /worker started/ }, ["worker"], { ...shared, LOG_LEVEL: "info" }, onLine))
  ]
  const settled = await Promise.allSettled(started)
  const members = settled.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []))
  const stop = async (graceMs = 10_000) => {
    await Promise.all(members.map((member) => stopMember(member, graceMs)))
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true })
  }
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === "rejected")
  if (failed !== undefined) {
    await stop(5_000)
    throw failed.reason
  }
  const byName = (name: string) => members.find((member) => member.name === name)!
  const services = Object.fromEntries(SERVICES.map((service) => [service, byName(service)])) as Record<ServiceName, Member>
  const worker = (name: string): WorkerMember => {
    const member = byName(name)
    return { ...member, workerId: `worker-${hostname()}-${member.child.pid}` }
  }
  return {
    services,
    iam: services.iam,
    gateways: [byName("gateway-a"), byName("gateway-b")],
    workers: [worker("worker-1"), worker("worker-2")],
    staticKey,
    dataDir,
    stop
  }
}
