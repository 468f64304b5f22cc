import { IdentityMount } from "@core/auth"
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
export type TrustedService = "registry" | "billing"

type App = HttpApp.Default<unknown>

/** Identity, the registry and billing in the host's process, as web-standard handlers. */
export interface EmbeddedCore {
  /** Identity: sign-up, sign-in, sessions, organizations, keys, pages (its own authentication). */
  readonly identity: Web.Handler
  /** The registry, for a caller the host authenticated (`signedHeaders`). */
  readonly registry: Web.Handler
  /** Billing, for a caller the host authenticated (`signedHeaders`). */
  readonly billing: Web.Handler
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
  /** Stop the billing cycle and close the database. */
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
}>() {}

const serviceNamed = (name: string) => {
  const found = Services.find(name)
  if (found === undefined) throw new Error(`This build of @core/server has no ${name} service`)
  return found
}

/**
 * Core's identity, registry and billing services in a host app's process, on one database (PGlite
 * under `CORE_DATA_DIR`, or PostgreSQL with `DATABASE_URL`) migrated on the first request. The
 * services are the ones `core-server` runs (`Services.trustedApp`): the registry and billing
 * believe only a caller signed with `CORE_SECRET`, which `signedHeaders` (or `forCaller`) does
 * once the host has authenticated the request its own way (decision 0551).
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
    Effect.all({
      identity: Services.trustedApp(serviceNamed("iam")),
      registry: Services.trustedApp(serviceNamed("registry")),
      billing: Services.trustedApp(serviceNamed("billing"))
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
    sessionOf,
    signedHeaders,
    forCaller,
    dispose: () => runtime.dispose()
  }
}
