import type { Registry } from "@core/contracts"
import { type Caller, Cursor, Ids } from "@core/kernel"
import { FEATURE_ACTIVATE, FEATURE_DEACTIVATE, Jobs, Targets } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import type { FeaturePayload } from "./jobs/FeatureJobs.js"
import { type ActivationRow, makeFeaturesRepo } from "./FeaturesRepo.js"
import { Platforms, type RowPage } from "./Platforms.js"
import { canUseArea } from "./Policy.js"
import { activationNotFound, entityNotFound, featureDeactivating, featureNotActive } from "./Errors.js"

const canUse = canUseArea("features")

/** What activation estimates (the local edge provider deploys in about a second; decision 0253). */
export const ESTIMATED_ACTIVATION_SECONDS = 5

/** An activation as the registry answers it (seed 002's FeatureActivationRecord). */
export const toActivationRecord = (row: ActivationRow): Registry.FeatureActivationRecord => ({
  id: row.id,
  platformId: row.platformId,
  entityId: row.entityId,
  featureId: row.featureId,
  featureVersion: row.featureVersion,
  environment: row.environment,
  status: row.status,
  activatedAt: row.activatedAt?.toISOString() ?? null,
  deactivatedAt: row.deactivatedAt?.toISOString() ?? null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString()
})

/** What activation answers, and whether it made a new activation (202) or found one (200). */
export interface Activated {
  readonly created: boolean
  readonly activation: ActivationRow
}

/** An activation's answer (seed 002). */
export const toActivateResponse = (row: ActivationRow): Registry.ActivateFeatureResponse => ({
  activationId: row.id,
  featureId: row.featureId,
  status: row.status,
  provisionJobId: row.provisionJobId ?? "",
  estimatedDurationSeconds: ESTIMATED_ACTIVATION_SECONDS
})

/**
 * A manifest entry's `package` and `serviceUrl`: from the activation's `config` when it names
 * them, else derived from the feature id (decision 0253).
 */
export const manifestEntry = (row: ActivationRow): Registry.Manifest["features"][number] => ({
  id: row.featureId,
  version: row.featureVersion,
  package: typeof row.config.package === "string" ? row.config.package : `@core-features/${row.featureId}`,
  serviceUrl: typeof row.config.serviceUrl === "string" ? row.config.serviceUrl : `/api/v1/features/${encodeURIComponent(row.featureId)}`,
  status: row.status
})


/**
 * An entity's feature activations and its manifest (seed 002, DESIGN §7). Activation inserts a
 * `pending` activation and enqueues its `feature.activate` job in one transaction; the job (in
 * `@core/provisioning`) moves it to `active` or `failed`. Deactivation marks it `deactivating`
 * and enqueues `feature.deactivate`, which ends it `deactivated`.
 */
export class Features extends Effect.Service<Features>()("@core/registry/Features", {
  effect: Effect.gen(function*() {
    const platforms = yield* Platforms
    const ids = yield* Ids.Ids
    const sql = yield* SqlClient.SqlClient
    const repo = makeFeaturesRepo(sql)
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die)) as Effect.Effect<A, E, R>
    const enqueue = (type: string, row: ActivationRow, organizationId: string | null) => {
      const payload: FeaturePayload = {
        activationId: row.id, platformId: row.platformId, entityId: row.entityId, featureId: row.featureId,
        featureVersion: row.featureVersion, environment: row.environment
      }
      return Jobs.enqueue(sql, {
        type, platformId: row.platformId, organizationId, payload: { ...payload },
        target: Targets.feature(row.platformId, row.entityId, row.featureId, row.environment)
      }).pipe(
        Effect.provideService(Ids.Ids, ids)
      )
    }

    /** The platform, if the caller may read it (another tenant's: 404); `write` wants `features:manage`, else `features:read`. */
    const platformFor = (caller: Caller, platformId: string, write: boolean) =>
      Effect.flatMap(platforms.get(platformId), (platform) => Effect.as(canUse(caller, platform, write), platform))

    const readable = (caller: Caller, platformId: string, entityId: string) =>
      Effect.gen(function*() {
        yield* platformFor(caller, platformId, false)
        if (!(yield* repo.entityExists(platformId, entityId))) return yield* entityNotFound
      })

    const activate = Effect.fn("Features.activate")(function*(
      caller: Caller,
      platformId: string,
      entityId: string,
      body: Registry.ActivateFeatureRequest
    ) {
      const platform = yield* platformFor(caller, platformId, true)
      return yield* inTransaction(Effect.gen(function*() {
        if (!(yield* repo.lockEntity(platformId, entityId))) return yield* entityNotFound
        const live = yield* repo.live(entityId, body.featureId, body.environment)
        if (Option.isSome(live)) {
          if (live.value.status === "deactivating") {
            return yield* featureDeactivating
          }
          return { created: false, activation: live.value } satisfies Activated
        }
        const at = yield* now
        const inserted = yield* repo.insert({
          id: yield* ids.make("act"), platformId, entityId, featureId: body.featureId, featureVersion: body.version,
          environment: body.environment, status: "pending", config: body.config ?? {}, provisionJobId: null,
          activatedAt: null, deactivatedAt: null, createdAt: at, updatedAt: at
        })
        const job = yield* enqueue(FEATURE_ACTIVATE, inserted, platform.organizationId)
        return { created: true, activation: yield* repo.setStatus(inserted.id, "pending", job.jobId, at) } satisfies Activated
      }))
    })

    const deactivate = Effect.fn("Features.deactivate")(function*(
      caller: Caller,
      platformId: string,
      entityId: string,
      body: Registry.DeactivateFeatureRequest
    ) {
      const platform = yield* platformFor(caller, platformId, true)
      return yield* inTransaction(Effect.gen(function*() {
        if (!(yield* repo.lockEntity(platformId, entityId))) return yield* entityNotFound
        const live = yield* repo.live(entityId, body.featureId, body.environment)
        if (Option.isNone(live)) return yield* featureNotActive
        if (live.value.status === "deactivating") return live.value
        const job = yield* enqueue(FEATURE_DEACTIVATE, live.value, platform.organizationId)
        return yield* repo.setStatus(live.value.id, "deactivating", job.jobId, yield* now)
      }))
    })

    const get = Effect.fn("Features.get")(function*(caller: Caller, platformId: string, entityId: string, activationId: string) {
      yield* readable(caller, platformId, entityId)
      const found = yield* repo.find(platformId, entityId, activationId)
      return Option.isSome(found) ? found.value : yield* activationNotFound
    })

    const list = Effect.fn("Features.list")(function*(caller: Caller, platformId: string, entityId: string, query: Registry.ListFeaturesQuery) {
      yield* readable(caller, platformId, entityId)
      const key = yield* Cursor.decodeOptional(Cursor.CreatedAtId, query.cursor)
      const after = key === undefined ? undefined : { createdAt: new Date(key.createdAt), id: key.id }
      const [rows, total] = yield* Effect.all([repo.list(entityId, query, after), repo.count(entityId, query)])
      const page = Cursor.page(rows, query.limit, (row) => ({ createdAt: row.createdAt.toISOString(), id: row.id }))
      return { data: page.data, pagination: { hasMore: page.hasMore, nextCursor: page.nextCursor, total } } satisfies RowPage<ActivationRow>
    })

    const manifest = Effect.fn("Features.manifest")(function*(
      caller: Caller,
      platformId: string,
      entityId: string,
      environment: Registry.Environment
    ) {
      yield* readable(caller, platformId, entityId)
      const rows = yield* repo.active(entityId, environment)
      return {
        platformId,
        entityId,
        environment,
        features: rows.map(manifestEntry),
        generatedAt: (yield* now).toISOString()
      } satisfies Registry.Manifest
    })

    /**
     * The platform's default tenant (slug `default`): features activated on a platform as a whole
     * (the command-line backend's routes) apply to it.
     */
    const defaultEntityId = Effect.fn("Features.defaultEntityId")(function*(platformId: string) {
      const found = yield* repo.defaultEntity(platformId)
      return Option.isSome(found) ? found.value : yield* entityNotFound
    })

    /**
     * A feature job's outcome (provisioning's `FeatureActivations` port): only from the status the
     * job was for: `active` from `pending` (or `failed`: its job retried or force-completed by an
     * operator), `failed` from `pending`, `deactivated` from `deactivating`, and `restored` (a
     * cancelled deactivation) `deactivating → active`.
     */
    const settle = (activationId: string, outcome: "active" | "failed" | "deactivated" | "restored") =>
      Effect.flatMap(now, (at) =>
        outcome === "restored"
          ? repo.settle(activationId, "deactivating", "active", at)
          : outcome === "active"
          ? repo.settle(activationId, ["pending", "failed"], "active", at)
          : repo.settle(activationId, outcome === "deactivated" ? "deactivating" : "pending", outcome, at)).pipe(
        Effect.withSpan("Features.settle", { attributes: { activationId, outcome } })
      )

    return { activate, deactivate, get, list, manifest, defaultEntityId, settle } as const
  }),
  dependencies: [Platforms.Default]
}) {}
