import type { HttpApp } from "@effect/platform"
import type { SqlClient } from "@effect/sql"
import type { Routes } from "@core/gateway"
import { Assemble, HttpUpstream, Upstream } from "@core/gateway"
import { IdentityApp, IdentityLive } from "@core/auth"
import { CoreConfig, ForwardedCallers, Ids } from "@core/kernel"
import { Platforms, RegistryRouter } from "@core/registry"
import { Context, Duration, Effect, Layer, type Scope } from "effect"
import { PlatformSetupLive } from "./PlatformSetupLive.js"
import type { DomainSettings } from "./Settings.js"

/**
 * What a service's app may need when it is built: the process's database, the shared configuration
 * and every domain's own settings.
 */
export type ServiceRequirements = SqlClient.SqlClient | CoreConfig | DomainSettings | Scope.Scope

/** A service this build can run, in the all-in-one server or alone with `serve --service`. */
export interface ServiceDefinition {
  /** The name `serve --service` takes, as in `CORE_UPSTREAM_<NAME>_URL` (`iam`, `registry`, …). */
  readonly name: string
  /** The gateway upstream it answers for. */
  readonly upstream: Routes.ServiceName
  /** Builds its HTTP app once at start. */
  readonly app: Effect.Effect<HttpApp.Default<unknown>, never, ServiceRequirements>
}

/**
 * Build an app from its layer once: the layer's services live as long as the surrounding scope
 * (the server), and each request runs with them and with the process's database and configuration
 * (the shared one and the domains' settings).
 */
const withLayer = <E, R, ROut, LE, RIn extends ServiceRequirements>(
  app: HttpApp.Default<E, R>,
  layer: Layer.Layer<ROut, LE, RIn>
): Effect.Effect<HttpApp.Default<unknown>, never, ServiceRequirements> =>
  Effect.gen(function*() {
    const outer = yield* Effect.context<SqlClient.SqlClient | CoreConfig | DomainSettings>()
    const built = yield* Layer.build(layer).pipe(Effect.orDie)
    return Effect.provide(app, Context.merge(outer, built)) as HttpApp.Default<unknown>
  })

/** The identity service: accounts, sessions, organizations, authorization, keys, audit. */
const iam: ServiceDefinition = {
  name: "iam",
  upstream: "IAM",
  app: withLayer(IdentityApp, IdentityLive.pipe(Layer.provide(PlatformSetupLive), Layer.provideMerge(Ids.layer)))
}

/**
 * The registry: platforms. It sits behind the gateway, which signs the caller for it
 * (`ForwardedCallers`: no identity database needed, in process or alone with `serve --service registry`).
 */
const registry: ServiceDefinition = {
  name: "registry",
  upstream: "REGISTRY",
  app: withLayer(RegistryRouter, Layer.mergeAll(Platforms.Default, ForwardedCallers.layer).pipe(Layer.provideMerge(Ids.layer)))
}

/** The services of this build; each domain's issue adds its own. */
export const SERVICES: ReadonlyArray<ServiceDefinition> = [iam, registry]

/** The definition named `name`, if this build has it. */
export const find = (name: string): ServiceDefinition | undefined =>
  SERVICES.find((service) => service.name === name.toLowerCase())

/**
 * A service's app as it runs behind the gateway, in process or alone: it sees only the identity
 * headers the gateway signed for it (a forged `X-Core-User-Id` never reaches it).
 */
export const trustedApp = (service: ServiceDefinition): Effect.Effect<HttpApp.Default<unknown>, never, ServiceRequirements> =>
  Effect.flatMap(CoreConfig, (config) =>
    Effect.map(service.app, (app) => Assemble.trusted(app, config, service.name) as HttpApp.Default<unknown>))

/**
 * The gateway's upstreams: over HTTP for each service with a `CORE_UPSTREAM_<SERVICE>_URL`
 * (keep-alive pools closed with the scope), in process for every other service of this build.
 */
export const upstreams = (
  onError?: (service: Routes.ServiceName, kind: "unavailable" | "timeout") => void
): Effect.Effect<ReadonlyArray<Upstream.Upstream>, never, ServiceRequirements> =>
  Effect.gen(function*() {
    const config = yield* CoreConfig
    const remote = yield* HttpUpstream.makeAll(config.upstreams, {
      timeout: Duration.millis(config.upstreamTimeoutMs),
      trustProxy: config.trustProxy,
      ...(onError === undefined ? {} : { onError })
    })
    const local = yield* Effect.forEach(
      SERVICES.filter((service) => !remote.some((upstream) => upstream.service === service.upstream)),
      (service) => Effect.flatMap(trustedApp(service), (app) => Upstream.fromHttpApp(service.upstream, app))
    )
    return [...remote, ...local]
  })
