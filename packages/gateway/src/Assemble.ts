import type { HttpApp, HttpServerRequest } from "@effect/platform"
import { type Configuration, ForwardedIdentity, PublicUrl, Telemetry, UpstreamUnavailable } from "@core/kernel"
import { Effect, Option, type Scope } from "effect"
import type { Redis } from "ioredis"
import * as Authentication from "./Authentication.js"
import * as Cors from "./Cors.js"
import * as CredentialCache from "./CredentialCache.js"
import * as Gateway from "./Gateway.js"
import type { PathRenderer } from "./Gateway.js"
import * as HostCheck from "./HostCheck.js"
import * as IdentityResolver from "./IdentityResolver.js"
import type * as Metrics from "./Metrics.js"
import type { GatewayApp, Guards } from "./Middleware.js"
import * as RateLimit from "./RateLimit.js"
import * as RequestUsage from "./RequestUsage.js"
import * as Tracing from "./Tracing.js"
import type { ServiceName } from "./Routes.js"
import type { Upstream } from "./Upstream.js"

/** What a complete gateway is built from. */
export interface AssembleOptions {
  readonly config: Configuration
  readonly upstreams: ReadonlyArray<Upstream>
  /** Everything outside `/api/v1` (`/health`, `/ready`, `/metrics`, pages). */
  readonly fallback?: GatewayApp
  /** Shared Redis (rate limits, credential cache); memory when absent. */
  readonly redis?: Redis
  /** Request counts, latencies, cache hits, rate-limit rejections. */
  readonly metrics?: Metrics.Metrics
  /** Billing's request meter: each request that passes the chain is counted for its platform (decision 0464). */
  readonly usage?: RequestUsage.RequestUsage
  /**
   * The error protocols of paths whose clients cannot read the envelope (`/mcp`'s JSON-RPC, the
   * OAuth routes'): the gateway's own refusals there are rendered so (decisions 0605, 0609).
   */
  readonly renderers?: ReadonlyArray<PathRenderer>
  /**
   * Spans exported (the server's telemetry layer): each request gets the gateway's `http.server`
   * span. @default `listener`: the `Telemetry` where it is built; `gateway`: none
   */
  readonly telemetry?: Telemetry.TelemetryService
}

const noIdentityService: IdentityResolver.IdentityResolver = {
  session: () => Effect.fail(new UpstreamUnavailable({ message: "The identity service is not available", upstream: "IAM" })),
  apiKey: () => Effect.fail(new UpstreamUnavailable({ message: "The identity service is not available", upstream: "IAM" }))
}

/**
 * The services whose upstream reads signed identity headers: all but those that take the caller
 * as a value (`Upstream.callerByValue`, in process); a later upstream of a service replaces an
 * earlier one, as in the routing.
 */
const signsFor = (upstreams: ReadonlyArray<Upstream>): (service: ServiceName) => boolean => {
  const byValue = new Map<ServiceName, boolean>()
  for (const upstream of upstreams) byValue.set(upstream.service, upstream.callerByValue === true)
  return (service) => byValue.get(service) !== true
}

/** The guards of the seed's steps 6 to 10 from configuration, with Redis or memory behind them. */
const guardsOf = (options: AssembleOptions): Guards => {
  const { config, metrics } = options
  const iam = options.upstreams.find((upstream) => upstream.service === "IAM")
  const isAllowedOrigin = Cors.originPolicy({
    allowed: config.corsOrigins,
    publicUrl: config.publicUrl,
    trustProxy: config.trustProxy
  })
  const authentication = Authentication.middleware({
    staticKey: config.staticApiKey,
    resolver: iam === undefined
      ? noIdentityService
      : iam.identity === undefined
      ? IdentityResolver.viaUpstream(iam, config.staticApiKey)
      : IdentityResolver.inProcess(iam.identity),
    cache: options.redis === undefined ? CredentialCache.memory() : CredentialCache.redis(options.redis),
    identityKey: ForwardedIdentity.keyFrom(config.secret),
    signsFor: signsFor(options.upstreams),
    isAllowedOrigin,
    publicRootOf: (request) => PublicUrl.rootOfHeaders(request.headers, config),
    hostRefusal: HostCheck.policy({ publicUrl: config.publicUrl, trustProxy: config.trustProxy }),
    ...(metrics === undefined ? {} : { onCacheLookup: metrics.authCache })
  })
  const rateLimiter = RateLimit.middleware({
    store: options.redis === undefined ? RateLimit.memoryStore() : RateLimit.redisStore(options.redis),
    rules: RateLimit.rulesFrom(config.rateLimits),
    trustProxy: config.trustProxy,
    ...(metrics === undefined ? {} : { onRejected: metrics.rateLimited })
  })
  return {
    rateLimiter,
    cors: Cors.middleware(isAllowedOrigin),
    tracing: Tracing.guard(options.telemetry),
    authentication,
    suspension: options.usage === undefined ? Authentication.suspension : RequestUsage.counting(Authentication.suspension, options.usage)
  }
}

const gatewayOptions = (options: AssembleOptions): Gateway.GatewayOptions => ({
  upstreams: options.upstreams,
  ...(options.fallback === undefined ? {} : { fallback: options.fallback }),
  ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
  ...(options.renderers === undefined ? {} : { renderers: options.renderers }),
  trustProxy: options.config.trustProxy,
  guards: guardsOf(options)
})

/**
 * The whole gateway (docs/gateway.md) from configuration (`REDIS_URL` → a shared Redis for rate
 * limits and the credential cache, else memory): routing to the upstreams inside the chain
 * of the seed (security headers, errors, request id, logger, timing, rate limiter, CORS, tracing,
 * authentication, suspension), as a `node:http` listener. Without `CORE_STATIC_API_KEY` it runs
 * the development bypass. This is what `core-server start` serves.
 *
 * @example
 * const listener = yield* Assemble.listener({ config, upstreams, fallback: health })
 */
export const listener = (options: AssembleOptions): Effect.Effect<Gateway.NodeListener> =>
  options.telemetry !== undefined
    ? Gateway.listener(gatewayOptions(options))
    : Effect.flatMap(Effect.serviceOption(Telemetry.Telemetry), (telemetry) =>
      Gateway.listener(gatewayOptions(Option.isSome(telemetry) ? { ...options, telemetry: telemetry.value } : options)))

/**
 * The same gateway as an `@effect/platform` app, for hosts that embed it
 * (`HttpApp.toWebHandler`, an Effect server).
 *
 * @example
 * const app = Assemble.gateway({ config, upstreams, fallback: health })
 */
export const gateway = (options: AssembleOptions): HttpApp.Default<never, Scope.Scope> =>
  Gateway.make(gatewayOptions(options))

/**
 * The warning logged at start when the development bypass is on, saying exactly what it lets
 * through: the gateway does not refuse a request without credentials itself, it passes it on with
 * no identity; the services still refuse it wherever a caller is needed (decision 0582).
 */
export const BYPASS_WARNING = "CORE_STATIC_API_KEY is not set: development bypass on. The gateway passes requests " +
  "without credentials on with no identity instead of answering 401 itself; that opens only " +
  "POST /api/v1/iam/api/core/apikey/validate to anyone, and unknown /api paths answer 404 instead of 401. " +
  "Every route that needs a caller (/api/v1/platforms, /mcp, …) still answers 401 without a session token " +
  "or an API key, presented credentials are checked as always, and there is no service key. " +
  "Set CORE_STATIC_API_KEY to turn it off (required when NODE_ENV=production)"

/** Log the bypass warning when it applies. */
export const warnIfBypass = (config: Configuration): Effect.Effect<void> =>
  config.staticApiKey === undefined ? Effect.logWarning(BYPASS_WARNING) : Effect.void

/**
 * A service's app as it must run behind the gateway: it sees only identity headers the gateway
 * signed for it (`audience` = its lower-case name).
 */
export const trusted = <E, R>(
  app: HttpApp.Default<E, R>,
  config: Configuration,
  audience: string
): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> =>
  ForwardedIdentity.guard(app, { key: ForwardedIdentity.keyFrom(config.secret), audience })
