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
import { Effect, Layer } from "effect"
import { Hono } from "hono"

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
 * Core's identity service as a web-standard handler (`@core/http/web`), its services built on the
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

/**
 * A Hono app of the host's own routes, with Core's identity service mounted under `/identity`:
 * the pages (`/identity/sign-up`, `/identity/sign-in`, …) and the API
 * (`/identity/api/auth/sign-up/email`, `/identity/api/core/session`, …).
 */
export const makeHost = (options: HostOptions) => {
  const path = options.path ?? "/identity"
  const identity = makeIdentity({ ...options, path })
  const app = new Hono()
  app.get("/", (c) => c.text(`Hello from the host app. Core's identity service is under ${path}.`))
  HonoAdapter.mount(app, path, identity.handler)
  return { app, dispose: identity.dispose }
}
