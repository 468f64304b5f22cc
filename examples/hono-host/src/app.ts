import { IamMigrations, IdentityApp, IdentityLive, MailConfig, PlatformSetup, RegistryPlatformSetup } from "@core/auth"
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
}

/** The registry in process gives every tenant organization its platform (same database). */
const PlatformSetupLive = Layer.effect(
  PlatformSetup,
  Effect.map(Platforms, (platforms) => RegistryPlatformSetup.make(platforms.create))
).pipe(Layer.provide(Platforms.Default))

/**
 * Core's identity service as a web-standard handler (`@core/http/web`), its services built on the
 * first request (the database migrated then). Mount it under any prefix: the adapters send the prefix
 * as `X-Forwarded-Prefix`, and the pages' links and forms follow it.
 */
export const makeIdentity = (options: HostOptions) => {
  const parsed = loadConfig(options.env)
  const config = CoreConfig.layer(options.env)
  const mail = MailConfig.layerConfig.pipe(Layer.provide(Layer.setConfigProvider(Config.provider(options.env))))
  const database = Database.layer({ url: parsed.databaseUrl, dataDir: parsed.dataDir })
  const services = IdentityLive.pipe(
    Layer.provide(PlatformSetupLive),
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
  const identity = makeIdentity(options)
  const app = new Hono()
  app.get("/", (c) => c.text("Hello from the host app. Core's identity service is under /identity."))
  HonoAdapter.mount(app, "/identity", identity.handler)
  return { app, dispose: identity.dispose }
}
