import { Duration, Effect, type Scope } from "effect"
import * as http from "node:http"
import * as https from "node:https"
import { Pool } from "undici"
import { forwardWith } from "./internal/upstreamForward.js"
import { nodeWith } from "./internal/upstreamNode.js"
import type { Target, Timeouts } from "./internal/upstreamTarget.js"
import type { UpstreamErrorKind } from "./Metrics.js"
import { isServiceName, type ServiceName } from "./Routes.js"
import type { Upstream } from "./Upstream.js"

export type { UpstreamErrorKind } from "./Metrics.js"

/** How an HTTP upstream connects, waits and reports. */
export interface HttpUpstreamOptions {
  /**
   * How long getting a connection (a pooled one, or a new one) may take, and how long the upstream
   * may take to answer with headers once the whole request is sent. Past it: 504 `UPSTREAM_TIMEOUT`.
   * @default 30 seconds
   */
  readonly timeout?: Duration.DurationInput
  /**
   * How long a body may stand still while it waits on the upstream: the upstream not taking more
   * of the request body, or not sending more of its response body. A slow client never counts.
   * @default 60 seconds
   */
  readonly idleTimeout?: Duration.DurationInput
  /** Connections open to the upstream at most; further requests wait for a free one. @default 256 */
  readonly maxSockets?: number
  /**
   * Keep the `X-Forwarded-Proto` and `X-Forwarded-Host` a proxy in front of the gateway set
   * (`CORE_TRUST_PROXY`) instead of writing the gateway's own view. @default false
   */
  readonly trustProxy?: boolean
  /** Called once for every upstream failure, before or after the headers, e.g. to count it. */
  readonly onError?: (service: ServiceName, kind: UpstreamErrorKind) => void
}

const DEFAULT_TIMEOUT = Duration.seconds(30)
const DEFAULT_IDLE_TIMEOUT = Duration.seconds(60)
const DEFAULT_MAX_SOCKETS = 256

const ignore = () => {}

const parseBaseUrl = (service: ServiceName, baseUrl: string): URL => {
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined
  if (
    url === undefined || (url.protocol !== "http:" && url.protocol !== "https:") ||
    url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== ""
  ) {
    throw new Error(`The ${service} upstream URL must be http(s) without credentials, query or fragment`)
  }
  return url
}

const targetOf = (service: ServiceName, baseUrl: string, maxSockets: number, timeouts: Timeouts): Target => {
  const url = parseBaseUrl(service, baseUrl)
  const secure = url.protocol === "https:"
  const transport = secure ? https : http
  return {
    transport,
    agent: new transport.Agent({ keepAlive: true, maxSockets }),
    pool: new Pool(url.origin, {
      connections: maxSockets,
      connect: { timeout: timeouts.timeoutMillis },
      headersTimeout: timeouts.timeoutMillis,
      bodyTimeout: timeouts.idleMillis
    }),
    hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: url.port === "" ? (secure ? "443" : "80") : url.port,
    host: url.host,
    basePath: url.pathname.replace(/\/+$/, "")
  }
}

/**
 * An upstream reached over HTTP(S) at `baseUrl` (`CORE_UPSTREAM_<SERVICE>_URL`). The gateway's
 * rewritten path is appended to the base URL's own path (`http://billing:8080/v2` and `/plans`
 * make `/v2/plans`). Requests go through a keep-alive pool of at most `maxSockets` connections,
 * closed with the scope. Bodies with a `Content-Length` up to 64 KiB travel whole (a request's
 * with its headers, a response's as one `uint8Array`); larger or chunked ones stream both ways
 * with backpressure. A connection refused, reset, unresolvable or hung up before the headers
 * answers 502 `UPSTREAM_UNAVAILABLE`; an upstream too slow to connect or answer 504
 * `UPSTREAM_TIMEOUT` — the message names the service, never the URL. A client going away aborts
 * the upstream request. Dies at once on a base URL that is not http(s), or carries credentials, a
 * query or a fragment.
 *
 * Its `node` does the same on Node's request and response, for the gateway's Node listener, through
 * an undici `Pool` of its own (`maxSockets` keep-alive connections, destroyed with the scope; there,
 * `timeout` covers connecting and the head, not the wait for a free connection): the
 * gateway's headers and `forwarding.url` go out as `forward`'s would, the answer is written with
 * one `writeHead` (`Set-Cookie` kept as an array) and the body whole or piped with backpressure, a
 * failure before the head goes to `forwarding.fail`, and its failures are logged with the runtime
 * `make` ran in.
 *
 * @example
 * const billing = yield* HttpUpstream.make("BILLING", "http://billing:8080", { onError: metrics.upstreamError })
 * const app = Gateway.make({ upstreams: [billing] })
 */
export const make = (
  service: ServiceName,
  baseUrl: string,
  options: HttpUpstreamOptions = {}
): Effect.Effect<Upstream, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const timeouts: Timeouts = {
        timeoutMillis: Duration.toMillis(options.timeout ?? DEFAULT_TIMEOUT),
        idleMillis: Duration.toMillis(options.idleTimeout ?? DEFAULT_IDLE_TIMEOUT)
      }
      return { timeouts, target: targetOf(service, baseUrl, options.maxSockets ?? DEFAULT_MAX_SOCKETS, timeouts) }
    }),
    ({ target }) =>
      Effect.promise(() => {
        target.agent.destroy()
        return target.pool.destroy().catch(ignore)
      })
  ).pipe(
    Effect.zipWith(Effect.runtime<never>(), ({ target, timeouts }, runtime): Upstream => {
      const settings = {
        service,
        target,
        ...timeouts,
        trustProxy: options.trustProxy ?? false,
        onError: options.onError ?? ignore,
        runtime
      }
      return { service, forward: forwardWith(settings), node: nodeWith(settings) }
    })
  )

/**
 * One HTTP upstream per configured URL, keyed by service name in any case (the configuration's
 * `upstreams`, `{ billing: "http://billing:8080" }`); keys that name no service are skipped.
 *
 * @example
 * const upstreams = yield* HttpUpstream.makeAll(config.upstreams, {
 *   timeout: config.upstreamTimeoutMs, // CORE_UPSTREAM_TIMEOUT_MS
 *   trustProxy: config.trustProxy,
 *   onError: metrics.upstreamError
 * })
 */
export const makeAll = (
  urls: Readonly<Record<string, string | undefined>>,
  options: HttpUpstreamOptions = {}
): Effect.Effect<ReadonlyArray<Upstream>, never, Scope.Scope> =>
  Effect.forEach(
    Object.entries(urls).flatMap(([name, url]) => {
      const service = name.toUpperCase()
      return url !== undefined && isServiceName(service) ? [[service, url] as const] : []
    }),
    ([service, url]) => make(service, url, options)
  )
