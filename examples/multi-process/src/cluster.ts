import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { createRequire } from "node:module"
import { createServer } from "node:net"
import { dirname, join } from "node:path"

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
  /** Ports of the two gateways and the identity service. @default free ports */
  readonly ports?: { readonly gateways?: readonly [number, number]; readonly iam?: number }
  /** More environment for every process (e.g. `CORE_RATE_LIMIT_PER_MINUTE`). */
  readonly env?: Readonly<Record<string, string>>
  /** Called with each line a process prints (prefixed with its name). */
  readonly onLine?: (line: string) => void
}

/** One running process of the cluster. */
export interface Member {
  readonly name: string
  readonly url: string
  readonly child: ChildProcess
}

/** The running cluster. */
export interface Cluster {
  readonly iam: Member
  readonly gateways: readonly [Member, Member]
  readonly staticKey: string
  /** Stop every process (SIGTERM, then SIGKILL after `graceMs`). */
  readonly stop: (graceMs?: number) => Promise<void>
}

const bin = join(dirname(createRequire(import.meta.url).resolve("@core/server/package.json")), "bin", "core-server.mjs")

const INHERITED = ["PATH", "HOME", "TMPDIR"]

/** A port free at this moment on 127.0.0.1. */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

/** Start `core-server …args` listening on `port`; resolve once its `/ready` answers 200. */
const launch = (
  name: string,
  port: number,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  onLine: (line: string) => void,
  timeoutMs = 120_000
): Promise<Member> =>
  new Promise((resolve, reject) => {
    const inherited = Object.fromEntries(INHERITED.flatMap((key) => (process.env[key] === undefined ? [] : [[key, process.env[key]!]])))
    const child = spawn(process.execPath, [bin, ...args], { env: { ...inherited, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let printed = ""
    let settled = false
    const fail = (message: string) => {
      if (settled) return
      settled = true
      child.kill("SIGKILL")
      reject(new Error(`${name}: ${message}\n${printed}`))
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
          newline = buffered.indexOf("\n")
        }
      })
    }
    const whenReady = async () => {
      const url = `http://127.0.0.1:${port}`
      while (!settled) {
        const ready = await fetch(`${url}/ready`).then((response) => response.status === 200, () => false)
        if (ready && !settled) {
          settled = true
          clearTimeout(timer)
          child.removeAllListeners("exit")
          resolve({ name, url, child })
          return
        }
        await new Promise((wait) => setTimeout(wait, 100))
      }
    }
    watch(child.stdout!)
    watch(child.stderr!)
    void whenReady()
  })

const stopMember = (member: Member, graceMs: number): Promise<void> =>
  new Promise((resolve) => {
    if (member.child.exitCode !== null || member.child.signalCode !== null) return resolve()
    const force = setTimeout(() => member.child.kill("SIGKILL"), graceMs)
    member.child.once("exit", () => {
      clearTimeout(force)
      resolve()
    })
    member.child.kill("SIGTERM")
  })

/**
 * Start the identity service alone (`core-server serve --service iam`), then two gateways
 * (`core-server start`) that reach it through `CORE_UPSTREAM_IAM_URL`, all on one PostgreSQL, the
 * gateways on one Redis. They share `CORE_SECRET` (so the identity service trusts what either
 * gateway signs) and the static key.
 *
 * @example
 * const cluster = await startCluster({ databaseUrl, redisUrl })
 * await fetch(`${cluster.gateways[0].url}/api/v1/iam/api/core/session`, { headers: { authorization: `Bearer ${token}` } })
 * await cluster.stop()
 */
export const startCluster = async (options: ClusterOptions): Promise<Cluster> => {
  const staticKey = options.staticKey ?? randomBytes(24).toString("base64url")
  const shared: Record<string, string> = {
    NODE_ENV: "development",
    DATABASE_URL: options.databaseUrl,
    CORE_SECRET: options.secret ?? randomBytes(32).toString("base64url"),
    CORE_STATIC_API_KEY: staticKey,
    ...options.env
  }
  const onLine = options.onLine ?? (() => undefined)
  const iamPort = options.ports?.iam ?? await freePort()
  const iam = await launch("iam", iamPort, ["serve", "--service", "iam", "--port", String(iamPort)], shared, onLine)
  const gatewayEnv = { ...shared, REDIS_URL: options.redisUrl, CORE_UPSTREAM_IAM_URL: iam.url }
  const portA = options.ports?.gateways?.[0] ?? await freePort()
  const portB = options.ports?.gateways?.[1] ?? await freePort()
  let gateways: readonly [Member, Member]
  try {
    gateways = await Promise.all([
      launch("gateway-a", portA, ["start"], { ...gatewayEnv, PORT: String(portA) }, onLine),
      launch("gateway-b", portB, ["start"], { ...gatewayEnv, PORT: String(portB) }, onLine)
    ])
  } catch (error) {
    await stopMember(iam, 5_000)
    throw error
  }
  return {
    iam,
    gateways,
    staticKey,
    stop: async (graceMs = 10_000) => {
      await Promise.all(gateways.map((gateway) => stopMember(gateway, graceMs)))
      await stopMember(iam, graceMs)
    }
  }
}
