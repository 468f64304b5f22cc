import { Database, Migrations } from "@core/kernel"
import { Effect, Layer, ManagedRuntime } from "effect"
import { Hono } from "hono"
import type { Context } from "hono"
import * as CoreAuth from "./CoreAuth.js"
import { PlantStoreMigrations } from "./migrations/index.js"
import * as OpenApi from "./OpenApi.js"
import { describeIssue, type ErrorBody, ListQuery, NewPlant } from "./Plant.js"
import { PlantsRepo } from "./PlantsRepo.js"

/** The store's settings: plain environment variables. */
export interface PlantStoreOptions {
  /**
   * `CORE_URL` (Core's gateway, required), `CORE_STATIC_API_KEY`, `DATABASE_URL` (PostgreSQL;
   * PGlite otherwise), `CORE_DATA_DIR` (PGlite's directory; in memory when unset),
   * `PLANT_STORE_PUBLIC_URL` (the OpenAPI `servers` address; the request's origin otherwise).
   */
  readonly env: Record<string, string | undefined>
  /** How Core is reached. @default globalThis.fetch */
  readonly fetch?: typeof fetch
}

/** The largest request body the store reads. */
export const MAX_BODY_BYTES = 16 * 1024

const fail = (c: Context, status: 400 | 401 | 404 | 409 | 413 | 500 | 502, message: string) =>
  c.json({ error: status, message } satisfies ErrorBody, status, status === 401 ? { "www-authenticate": "Bearer" } : {})

/**
 * The plant store as a Hono app: `GET /openapi.json` without authentication, `POST /plants` and
 * `GET /plants` with a bearer credential Core accepts. Plants live in the `plant_store` schema of
 * the database, migrated on the first request. `dispose` closes the database.
 */
export const makePlantStore = (options: PlantStoreOptions) => {
  const env = options.env
  const coreUrl = env.CORE_URL
  if (coreUrl === undefined || coreUrl === "") throw new Error("CORE_URL is not set: the plant store checks credentials with Core")
  const auth = CoreAuth.make({ coreUrl, staticApiKey: env.CORE_STATIC_API_KEY || undefined, ...(options.fetch ? { fetch: options.fetch } : {}) })
  const database = Database.layer({ url: env.DATABASE_URL, dataDir: env.CORE_DATA_DIR })
  const runtime = ManagedRuntime.make(
    PlantsRepo.Default.pipe(
      Layer.provideMerge(Migrations.layer([PlantStoreMigrations])),
      Layer.provide(database),
      Layer.orDie
    )
  )
  const repo = <A>(use: (plants: PlantsRepo) => Effect.Effect<A>) => runtime.runPromise(Effect.flatMap(PlantsRepo, use))

  const app = new Hono<{ Variables: { caller: CoreAuth.Caller } }>()

  app.get("/openapi.json", (c) => c.json(OpenApi.document(env.PLANT_STORE_PUBLIC_URL ?? new URL(c.req.url).origin)))

  app.use("/plants", async (c, next) => {
    const credential = CoreAuth.bearerOf(c.req.header("authorization"))
    if (credential === undefined) return fail(c, 401, "Authentication required: send Authorization: Bearer <Core API key or session token>")
    const caller = await auth.verify(credential)
    if (caller === undefined) return fail(c, 401, "Invalid, expired or revoked credentials")
    c.set("caller", caller)
    await next()
  })

  app.post("/plants", async (c) => {
    if (Number(c.req.header("content-length") ?? 0) > MAX_BODY_BYTES) return fail(c, 413, `The body is larger than ${MAX_BODY_BYTES} bytes`)
    const text = await c.req.text()
    if (text.length > MAX_BODY_BYTES) return fail(c, 413, `The body is larger than ${MAX_BODY_BYTES} bytes`)
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      return fail(c, 400, "The body is not valid JSON")
    }
    const parsed = NewPlant.safeParse(json)
    if (!parsed.success) return fail(c, 400, describeIssue(parsed.error))
    const plant = parsed.data
    const added = await repo((plants) => plants.insert(c.get("caller").owner, plant))
    if (!added) return fail(c, 409, `A plant with id ${plant.id} already exists`)
    return c.json({ name: plant.name, ...(plant.tag === undefined ? {} : { tag: plant.tag }) }, 200)
  })

  app.get("/plants", async (c) => {
    const parsed = ListQuery.safeParse(c.req.query())
    if (!parsed.success) return fail(c, 400, describeIssue(parsed.error))
    return c.json(await repo((plants) => plants.list(c.get("caller").owner, parsed.data)), 200)
  })

  app.notFound((c) => fail(c, 404, "Not found"))
  app.onError((error, c) => {
    if (error instanceof CoreAuth.CoreUnavailable) return fail(c, 502, error.message)
    console.error("plant store: unexpected failure", error)
    return fail(c, 500, "Internal error")
  })

  return { app, dispose: () => runtime.dispose() }
}
