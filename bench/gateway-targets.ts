import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Assemble, HttpUpstream, Metrics, RequestUsage, Upstream } from "@core/gateway"
import { type Configuration, loadConfig, Logging } from "@core/kernel"
import { Listener } from "@core/server"
import { Duration, Effect, type Scope } from "effect"
import { referenceProxy } from "./gateway-fastify.js"
import { BENCH_ENV, identityApp, signedUpOwner } from "./gateway-identity.js"
import { profileFile, startProfiling } from "./gateway-profile.js"

/** The trivial upstream route: the registry's `GET /ping` → a small JSON body. */
const ping = HttpRouter.empty.pipe(HttpRouter.get("/ping", Effect.succeed(HttpServerResponse.unsafeJson({ pong: true }))))

/** The registry's app as a service behind the gateway runs it (it checks forwarded identities). */
const registryApp = (config: Configuration) => Assemble.trusted(ping, config, "registry")

const loopback = { port: 0, host: "127.0.0.1" }

/** What a target answers on its first line: its port, then the bearer to load it with, if any. */
type Started = Effect.Effect<string, unknown, Scope.Scope>

/** Start one target on 127.0.0.1; `config` comes from the bench's environment (`BENCH_ENV`). */
export const targets: Record<string, (config: Configuration) => Started> = {
  /** The registry app served by the server's Listener, no gateway. */
  direct: (config) => Effect.map(Listener.listen(registryApp(config), loopback), String),

  /**
   * The all-in-one gateway as `core-server start` assembles it: the identity service and the
   * registry in process, metrics, billing's request meter (its flushes sent nowhere: the cost
   * measured is the request path's), the configured limits; its owner signs up through it.
   */
  gateway: (config) =>
    Effect.gen(function*() {
      const metrics = Metrics.make()
      const usage = yield* RequestUsage.make({ sink: () => Effect.void })
      const iam = yield* Upstream.fromHttpApp("IAM", yield* identityApp(config))
      const registry = yield* Upstream.fromHttpApp("REGISTRY", registryApp(config))
      const { port } = yield* Listener.listenNode(yield* Assemble.listener({ config, upstreams: [iam, registry], metrics, usage }), loopback)
      const token = yield* Effect.promise(() => signedUpOwner(`http://127.0.0.1:${port}/api/v1/iam`))
      return `${port} ${token}`
    }),

  /** The identity service alone (`core-server serve --service iam`), with its owner's bearer. */
  iam: (config) =>
    Effect.gen(function*() {
      const port = yield* Listener.listen(yield* identityApp(config), loopback)
      const token = yield* Effect.promise(() => signedUpOwner(`http://127.0.0.1:${port}`))
      return `${port} ${token}`
    }),

  /** The gateway alone, the identity service over HTTP at `CORE_UPSTREAM_IAM_URL`. */
  "gateway-http": (config) =>
    Effect.gen(function*() {
      const url = config.upstreams.iam
      if (url === undefined) return yield* Effect.dieMessage("CORE_UPSTREAM_IAM_URL is not set")
      const metrics = Metrics.make()
      const iam = yield* HttpUpstream.make("IAM", url, {
        timeout: Duration.millis(config.upstreamTimeoutMs),
        trustProxy: config.trustProxy,
        onError: metrics.upstreamError
      })
      return String((yield* Listener.listenNode(yield* Assemble.listener({ config, upstreams: [iam], metrics }), loopback)).port)
    }),

  /** The Fastify reference proxy in front of the identity service at `CORE_UPSTREAM_IAM_URL`. */
  fastify: (config) =>
    Effect.gen(function*() {
      const url = config.upstreams.iam
      if (url === undefined) return yield* Effect.dieMessage("CORE_UPSTREAM_IAM_URL is not set")
      return String(yield* Effect.promise(() => referenceProxy(url)))
    })
}

/**
 * Run as a child (`gateway-targets.ts <target>`): print the first line, then serve until SIGTERM.
 * With `BENCH_CPU_PROF=<dir>` it samples its CPU from then on and writes
 * `<dir>/<target>-<pid>.cpuprofile` when it is stopped.
 */
const name = process.argv[2]
if (name !== undefined) {
  const start = targets[name]
  if (start === undefined) throw new Error(`unknown target ${name}; one of ${Object.keys(targets).join(", ")}`)
  const config = loadConfig({ ...BENCH_ENV, CORE_UPSTREAM_IAM_URL: process.env.CORE_UPSTREAM_IAM_URL })
  const profiles = process.env.BENCH_CPU_PROF
  const started = async (line: string) => {
    const stop = profiles === undefined ? async () => {} : await startProfiling(profileFile(profiles, name, process.pid))
    process.once("SIGTERM", () => void stop().finally(() => process.exit(0)))
    process.stdout.write(`${line}\n`)
  }
  await Effect.runPromise(
    Effect.scoped(Effect.flatMap(start(config), (line) => Effect.zipRight(Effect.promise(() => started(line)), Effect.never)))
      .pipe(Effect.provide(Logging.layer({ level: config.logLevel })))
  ).catch((error: unknown) => {
    process.stderr.write(`target ${name} failed: ${String(error)}\n`)
    process.exit(1)
  })
}
