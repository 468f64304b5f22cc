import {
  IamMigrations,
  IdentityApp,
  IdentityLive,
  IdentityMount,
  MailConfig,
  PlatformSetup,
  RegistryPlatformSetup
} from "@core/auth"
import * as Web from "@core/http/web"
import * as HonoAdapter from "@core/http/hono"
import { Config, CoreConfig, Database, Ids, loadConfig, Migrations } from "@core/kernel"
import { Platforms, RegistryMigrations } from "@core/registry"
import { Embedded } from "@core/server"
import { Effect, Layer } from "effect"
import { type Context, Hono } from "hono"
import { getCookie } from "hono/cookie"
import { createMiddleware } from "hono/factory"

/** Where the host keeps Core's data and how Core is configured: plain environment variables. */
export interface HostOptions {
  /** `DATABASE_URL`, `CORE_DATA_DIR`, `CORE_SECRET`, `CORE_PUBLIC_URL`, `SMTP_URL`, … (see `.env.example`). */
  readonly env: Record<string, string | undefined>
  /**
   * Where the host mounts identity under `CORE_PUBLIC_URL`: the links identity mails (password reset,
   * email verification, magic link) point there, since a mail is not a request whose prefix could say
   * so (decision 0212). @default "/identity"
   */
  readonly path?: string
}

/** The registry in process gives every tenant organization its platform (same database). */
const PlatformSetupLive = Layer.effect(
  PlatformSetup,
  Effect.map(Platforms, (platforms) => RegistryPlatformSetup.make(platforms.create))
).pipe(Layer.provide(Platforms.Default))

/**
 * Core's identity service alone (no registry or billing routes) as a web-standard handler
 * (`@core/http/web`), for a host that wants only accounts (`tests/fixtures/express-identity-host.ts`
 * mounts it in Express); `makeHost` embeds identity, the registry and billing together. Its services are built on the
 * first request (the database migrated then). Mount it under `options.path`: the adapters send the
 * prefix as `X-Forwarded-Prefix`, and the pages' links and forms follow it; the mailed links follow
 * `options.path` and `CORE_PUBLIC_URL`.
 */
export const makeIdentity = (options: HostOptions) => {
  const parsed = loadConfig(options.env)
  const config = CoreConfig.layer(options.env)
  const mail = MailConfig.layerConfig.pipe(Layer.provide(Layer.setConfigProvider(Config.provider(options.env))))
  const database = Database.layer({ url: parsed.databaseUrl, dataDir: parsed.dataDir })
  const services = IdentityLive.pipe(
    Layer.provide(PlatformSetupLive),
    Layer.provide(IdentityMount.at(options.path ?? "/identity")),
    Layer.provideMerge(Layer.mergeAll(config, mail, Ids.layer)),
    Layer.provideMerge(Layer.merge(database, Migrations.layer([IamMigrations, RegistryMigrations]).pipe(Layer.provide(database)))),
    Layer.orDie
  )
  return Web.make(IdentityApp, services)
}

/** The session cookie identity sets on sign-in (the host reads it too). */
const SESSION_COOKIE = "core.session_token"

/** The variables the host's own authentication sets for the routes behind it. */
type HostEnv = { Variables: { caller: Embedded.SessionCaller } }

/**
 * A Hono app of the host's own routes, with Core embedded (decision 0551):
 * - `/identity/*`: Core's identity service — the pages (`/identity/sign-up`, `/identity/sign-in`, …)
 *   and the API (`/identity/api/auth/sign-up/email`, `/identity/api/core/session`, …), which
 *   authenticates its own callers;
 * - `/registry/*`, `/billing/*` and `/events/*`: Core's registry, billing and events (webhook
 *   endpoints, the event log), behind the host's `requireUser` (the host decides who comes in, then
 *   signs that caller for the service);
 * - `/me`: a route of the host's own that reads the embedded registry and billing for its user.
 */
export const makeHost = (options: HostOptions) => {
  const path = options.path ?? "/identity"
  const core = Embedded.make(options.env, { identityPath: path })
  const app = new Hono<HostEnv>()

  /** The host's own authentication: a Core session (bearer or cookie), checked with the embedded identity. */
  const requireUser = createMiddleware<HostEnv>(async (c, next) => {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "")?.[1]
    const token = bearer ?? getCookie(c, SESSION_COOKIE)
    const caller = token === undefined || token.length > 4096 ? undefined : await core.sessionOf(token)
    if (caller === undefined) {
      c.header("www-authenticate", "Bearer")
      return c.json({ error: "unauthorized", message: `Sign in at ${path} first` }, 401)
    }
    c.set("caller", caller)
    await next()
  })

  app.get("/", (c) => c.text(`Hello from the host app. Core: ${path} (identity), /registry, /billing, /events.`))
  HonoAdapter.mount(app, path, core.identity)
  // The registry and billing for the caller `requireUser` let in: the service sees its own paths,
  // that caller signed for it, and no identity header of the client's own.
  for (const service of ["registry", "billing", "events"] as const) {
    const prefix = `/${service}`
    const forward = (c: Context<HostEnv>) => core[service](core.forCaller(Web.stripPrefix(c.req.raw, prefix), c.get("caller"), service))
    app.all(prefix, requireUser, forward)
    app.all(`${prefix}/*`, requireUser, forward)
  }

  app.get("/me", requireUser, async (c) => {
    const caller = c.get("caller")
    if (caller.platformId === null || caller.platformId === undefined) return c.json({ email: caller.email, platform: null, subscription: null })
    const [platform, subscription] = await Promise.all([
      core.registry(new Request(`http://core.internal/api/v1/platforms/${caller.platformId}`, { headers: core.signedHeaders(caller, "registry") })),
      core.billing(new Request(`http://core.internal/api/billing/subscription?platformId=${caller.platformId}`, { headers: core.signedHeaders(caller, "billing") }))
    ])
    const p = (await platform.json()) as { slug?: string; status?: string }
    const s = (await subscription.json()) as { tier?: string; status?: string }
    return c.json({
      email: caller.email,
      platform: platform.ok ? { slug: p.slug, status: p.status } : null,
      subscription: subscription.ok ? { tier: s.tier, status: s.status } : null
    })
  })

  // `subscribe`: the committed events in process, for the host's own reactions (no HTTP).
  return { app, subscribe: core.subscribe, dispose: core.dispose }
}
