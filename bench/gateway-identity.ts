import type { HttpApp } from "@effect/platform"
import { type Configuration, CoreConfig, Database } from "@core/kernel"
import { Migrations, Services, Settings } from "@core/server"
import { Effect, Layer, type Scope } from "effect"

/**
 * The configuration every gateway and identity target of the bench runs with: production rules
 * (a static key, a long `CORE_SECRET`), an in-memory PGlite database, errors-only logs, and the
 * highest per-minute rate limit the configuration takes (1 000 000 per `{ip}:{path}`), which no
 * run of the default length comes near (a target would need 16 700 req/s for a whole minute).
 */
export const BENCH_ENV: Readonly<Record<string, string>> = {
  NODE_ENV: "production",
  CORE_DATA_DIR: ":memory:",
  CORE_SECRET: "bench-secret-bench-secret-bench-secret-01",
  CORE_STATIC_API_KEY: "bench-static-key-0123456789",
  CORE_RATE_LIMIT_PER_MINUTE: "1000000",
  LOG_LEVEL: "error"
}

/**
 * The identity service as `core-server serve --service iam` builds it: the in-memory database
 * migrated for every domain, and the `iam` service's trusted app (it accepts only identity
 * headers the gateway signed for it). The database lives as long as the scope. Its routes read
 * `CoreConfig` per request, which the app's type does not show, so it is provided here (as the
 * all-in-one server's upstreams capture it; `serve --service` does not yet, see decision 0165).
 * The domains' own settings come from `BENCH_ENV` (all unset: the outbox mailer).
 */
export const identityApp = (config: Configuration): Effect.Effect<HttpApp.Default<unknown>, unknown, Scope.Scope> =>
  Effect.gen(function*() {
    const definition = Services.find("iam")
    if (definition === undefined) return yield* Effect.dieMessage("this build has no iam service")
    const database = yield* Layer.build(Database.layer({ url: config.databaseUrl, dataDir: config.dataDir }))
    yield* Migrations.runAll(config).pipe(Effect.provide(database))
    const app = yield* Services.trustedApp(definition).pipe(
      Effect.provide(database),
      Effect.provideService(CoreConfig, config),
      Effect.provide(Settings.layer(BENCH_ENV))
    )
    return Effect.provideService(app, CoreConfig, config)
  })

const call = async (url: string, body: unknown, credential: Record<string, string> = {}): Promise<Record<string, unknown>> => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...credential },
    body: JSON.stringify(body)
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${text}`)
  return JSON.parse(text) as Record<string, unknown>
}

/**
 * Sign a user up through the identity routes under `base` (the identity service itself, or
 * `<gateway>/api/v1/iam`), set up an organization with its platform (the setup route, as the page
 * posts it, takes the session cookie), make it the session's active one, and answer the session's
 * bearer token: `/api/core/session` then describes an owner in a tenant, as for a real caller.
 */
export const signedUpOwner = async (base: string): Promise<string> => {
  const { token } = await call(`${base}/api/auth/sign-up/email`, {
    name: "Bench",
    email: "bench@example.com",
    password: "bench password 1"
  })
  if (typeof token !== "string") throw new Error("sign-up answered no session token")
  const { orgId } = await call(`${base}/api/core/org-setup`, { name: "Bench", slug: "bench" }, { cookie: `core.session_token=${token}` })
  await call(`${base}/api/auth/organization/set-active`, { organizationId: orgId }, { authorization: `Bearer ${token}` })
  return token
}
