import { IdentityMount } from "@core/auth"
import { EventFeed, type EventHandler, type SubscribeOptions, type Unsubscribe } from "@core/events"
import { IdentityResolver } from "@core/gateway"
import * as Web from "@core/http/web"
import { CoreConfig, Database, ForwardedIdentity, loadConfig, Logging, Migrations } from "@core/kernel"
import type { HttpApp } from "@effect/platform"
import { Context, Effect, Layer, ManagedRuntime } from "effect"
import { DOMAINS } from "./Migrations.js"
import * as Services from "./Services.js"
import * as Settings from "./Settings.js"
import * as Telemetry from "./Telemetry.js"
import { TelemetryConfig } from "./TelemetryConfig.js"
import * as Terminal from "./Terminal.js"

/** A signed-in user as Core's gateway knows it (identity's `/api/core/session` answer). */
export type SessionCaller = ReturnType<typeof IdentityResolver.sessionPrincipal>

/** The services a host app embeds behind its own authentication (decision 0551). */
export type TrustedService = "registry" | "billing" | "events"

type App = HttpApp.Default<unknown>

/**
 * Identity, the registry, billing and events in the host's process, as web-standard handlers, and
 * the committed events as an in-process feed.
 */
export interface EmbeddedCore {
  /** Identity: sign-up, sign-in, sessions, organizations, keys, pages (its own authentication). */
  readonly identity: Web.Handler
  /** The registry, for a caller the host authenticated (`signedHeaders`). */
  readonly registry: Web.Handler
  /** Billing, for a caller the host authenticated (`signedHeaders`). */
  readonly billing: Web.Handler
  /**
   * Events and webhooks (`/api/v1/webhooks/…`, `/api/v1/events/…`), for a caller the host
   * authenticated (`signedHeaders(caller, "events")`): the organization's endpoints, deliveries and events.
   */
  readonly events: Web.Handler
  /**
   * Calls `handler` with each committed event from now on (every organization's unless
   * `options.organizationId`; `types`, `platformId`, `after` as `EventFeed.subscribe`), one at a
   * time in dispatch order. Resolves, once the services run, with the function that ends it.
   */
  readonly subscribe: (handler: EventHandler, options?: SubscribeOptions) => Promise<Unsubscribe>
  /** The in-process feed itself (`EventFeed`: `committed(options)` is an Effect `Stream`), once the services run. */
  readonly feed: () => Promise<EventFeed>
  /**
   * Who a session token belongs to, asked of the embedded identity service in process
   * (`GET /api/core/session`); `undefined` when identity refuses it.
   */
  readonly sessionOf: (token: string) => Promise<SessionCaller | undefined>
  /**
   * The identity headers of a caller for one service (`X-Core-Identity` signed with `CORE_SECRET`,
   * what Core's gateway sends): the registry and billing trust nothing else.
   */
  readonly signedHeaders: (caller: SessionCaller, service: TrustedService) => Record<string, string>
  /**
   * `request` with the client's identity headers removed and `caller`'s, signed for
   * `service`, put in their place: what a host sends the registry or billing once it has decided
   * who the caller is.
   */
  readonly forCaller: (request: Request, caller: SessionCaller, service: TrustedService) => Request
  /** Stop the billing cycle, the event relay and the job worker, end the subscriptions, and close the database. */
  readonly dispose: () => Promise<void>
}

/** Where the host mounts identity, for the links it mails (`IdentityMount`). */
export interface EmbedOptions {
  /** The mount of identity under `CORE_PUBLIC_URL` (`/auth`, `/identity`). @default the gateway's `/api/v1/iam` */
  readonly identityPath?: string
  /**
   * How the services log. @default the server's: JSON lines at `CORE_LOG_LEVEL` (default `info`) on
   * stdout, or text lines when stdout is a terminal — what `core-server start` prints.
   */
  readonly logging?: Logging.LoggingOptions
}

class Apps extends Context.Tag("@core/server/Embedded/Apps")<Apps, {
  readonly identity: App
  readonly registry: App
  readonly billing: App
  readonly events: App
  readonly feed: EventFeed
}>() {}

const serviceNamed = (name: string) => {
  const found = Services.find(name)
  if (found === undefined) throw new Error(`This build of @core/server has no ${name} service`)
  return found
}

/**
 * Core's identity, registry, billing and events services in a host app's process, on one database
 * (PGlite under `CORE_DATA_DIR`, or PostgreSQL with `DATABASE_URL`) migrated on the first request
 * (or the first `subscribe`). The services are the ones `core-server` runs (`Services.trustedApp`):
 * the registry, billing and events believe only a caller signed with `CORE_SECRET`, which
 * `signedHeaders` (or `forCaller`) does once the host has authenticated the request its own way
 * (decision 0551). As `core-server start` does, it runs the events relay (the domains' events reach
 * `subscribe`, the stream and the webhook endpoints) and the provisioning worker (the registry's
 * jobs and the webhook deliveries); `CORE_WORKER_CONCURRENCY=0` leaves the jobs to another process.
 *
 * @example
 * const core = Embedded.make(process.env, { identityPath: "/auth" })
 * app.use("/auth", Express.middleware(core.identity))
 */
export const make = (env: Record<string, string | undefined>, options: EmbedOptions = {}): EmbeddedCore => {
  const parsed = loadConfig(env)
  const database = Database.layer({ url: parsed.databaseUrl, dataDir: parsed.dataDir })
  const base = Layer.mergeAll(CoreConfig.layer(env), Settings.layer(env)).pipe(
    Layer.provideMerge(Layer.merge(database, Migrations.layer(DOMAINS, { outOfOrder: parsed.migrationsOutOfOrder }).pipe(Layer.provide(database))))
  )
  const mount = options.identityPath === undefined ? Layer.empty : IdentityMount.at(options.identityPath)
  const apps = Layer.scoped(
    Apps,
    Effect.gen(function*() {
      const identity = yield* Services.trustedApp(serviceNamed("iam"))
      const registry = yield* Services.trustedApp(serviceNamed("registry"))
      const billing = yield* Services.trustedApp(serviceNamed("billing"))
      const events = yield* Services.trustedService(serviceNamed("events"))
      // Provisioning for its worker: the registry's jobs and the webhook deliveries run in the host.
      yield* Services.trustedApp(serviceNamed("provisioning"))
      return { identity, registry, billing, events: events.app, feed: Context.get(events.context as Context.Context<EventFeed>, EventFeed) }
    })
  ).pipe(Layer.provide(mount))
  const logging = Logging.layer(options.logging ?? Terminal.logging(parsed, Terminal.forProcess()))
  // The host's OTEL_* variables export the services' spans as `core-embedded` (docs/observability.md).
  const telemetry = Layer.unwrapEffect(Effect.map(TelemetryConfig, (settings) => Telemetry.layer(settings, "core-embedded"))).pipe(
    Layer.provide(Settings.layer(env))
  )
  const runtime = ManagedRuntime.make(
    apps.pipe(Layer.provideMerge(base), Layer.provideMerge(telemetry), Layer.provide(logging), Layer.merge(logging), Layer.orDie)
  )
  const key = ForwardedIdentity.keyFrom(parsed.secret)

  /** A handler that builds the services on its first request, then serves `pick`'s app. */
  const handlerOf = (pick: (apps: Context.Tag.Service<Apps>) => App): Web.Handler => {
    let handler: Web.Handler | undefined
    return async (request) => {
      if (handler === undefined) {
        const runtimeValue = await runtime.runtime()
        handler = Web.fromRuntime(runtimeValue)(pick(Context.get(runtimeValue.context, Apps)))
      }
      return handler(request)
    }
  }

  const identity = handlerOf((found) => found.identity)

  const feed = async () => Context.get((await runtime.runtime()).context, Apps).feed
  const subscribe = async (handler: EventHandler, options: SubscribeOptions = {}) => {
    const found = await feed()
    // "From now on" is fixed before this resolves: a change made after it reaches the handler.
    const after = options.after ?? await runtime.runPromise(found.position())
    return found.subscribe(handler, { ...options, after })
  }

  const sessionOf = async (token: string) => {
    const answer = await identity(new Request("http://core.internal/api/core/session", { headers: { authorization: `Bearer ${token}` } }))
    if (answer.status !== 200) return undefined
    return IdentityResolver.sessionPrincipal(await answer.json() as Parameters<typeof IdentityResolver.sessionPrincipal>[0])
  }

  const signedHeaders = (caller: SessionCaller, service: TrustedService) =>
    ForwardedIdentity.headersFor(caller, ForwardedIdentity.sign(key, caller, service, Date.now()))

  const forCaller = (request: Request, caller: SessionCaller, service: TrustedService) => {
    const headers = new Headers(request.headers)
    for (const name of Object.values(ForwardedIdentity.HEADERS)) headers.delete(name)
    for (const [name, value] of Object.entries(signedHeaders(caller, service))) headers.set(name, value)
    return new Request(request, { headers })
  }

  return {
    identity,
    registry: handlerOf((found) => found.registry),
    billing: handlerOf((found) => found.billing),
    events: handlerOf((found) => found.events),
    subscribe,
    feed,
    sessionOf,
    signedHeaders,
    forCaller,
    dispose: () => runtime.dispose()
  }
}
