import type { Registry } from "@core/contracts"
import { Ids } from "@core/kernel"
import { DnsTargets, FeatureRecords, LiveResources, OnboardingFlows, PlatformDirectory } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer, Option } from "effect"
import { makeFeaturesRepo } from "./FeaturesRepo.js"
import { Onboarding } from "./Onboarding.js"
import { PlatformsRepo } from "./PlatformsRepo.js"
import { makeResourceRecordsRepo } from "./ResourceRecordsRepo.js"
import { ResourcesRepo } from "./ResourcesRepo.js"
import { entityNotFound, featureDeactivating, featureNotActive } from "./Errors.js"

/**
 * Provisioning's `PlatformDirectory` over the registry's platforms (same database): who owns a
 * platform, for provisioning's job-creating routes.
 */
export const PlatformDirectoryLive: Layer.Layer<PlatformDirectory, never, SqlClient.SqlClient> = Layer.effect(
  PlatformDirectory,
  Effect.map(PlatformsRepo, (repo) =>
    PlatformDirectory.of({
      platform: (platformId) =>
        Effect.map(repo.findById(platformId), Option.map((row) => ({
          platformId: row.id,
          organizationId: row.organizationId ?? null,
          deleted: row.status === "deleted" || row.deletedAt !== null,
          status: row.status
        })))
    }))
).pipe(Layer.provide(PlatformsRepo.Default))

/**
 * Provisioning's `FeatureRecords` over the registry's activations: a direct `feature/activate`
 * makes the entity's activation `pending` (created when there is none, its version updated when
 * there is one), a direct `feature/deactivate` makes it `deactivating`; both inside provisioning's
 * transaction, so the activation and its job exist together (decision 0289).
 */
export const FeatureRecordsLive: Layer.Layer<FeatureRecords, never, SqlClient.SqlClient | Ids.Ids> = Layer.effect(
  FeatureRecords,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const ids = yield* Ids.Ids
    const repo = makeFeaturesRepo(sql)
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    return FeatureRecords.of({
      activate: (target) =>
        Effect.gen(function*() {
          if (!(yield* repo.lockEntity(target.platformId, target.entityId))) return yield* entityNotFound
          const live = yield* repo.live(target.entityId, target.featureId, target.environment)
          const at = yield* now
          if (Option.isSome(live)) {
            if (live.value.status === "deactivating") {
              return yield* featureDeactivating
            }
            yield* repo.setPendingVersion(live.value.id, target.featureVersion, at)
            return live.value.id
          }
          const inserted = yield* repo.insert({
            id: yield* ids.make("act"), platformId: target.platformId, entityId: target.entityId, featureId: target.featureId,
            featureVersion: target.featureVersion, environment: target.environment as Registry.Environment, status: "pending", config: {},
            provisionJobId: null, activatedAt: null, deactivatedAt: null, createdAt: at, updatedAt: at
          })
          return inserted.id
        }),
      deactivate: (target) =>
        Effect.gen(function*() {
          if (!(yield* repo.lockEntity(target.platformId, target.entityId))) return yield* entityNotFound
          const live = yield* repo.live(target.entityId, target.featureId, target.environment)
          if (Option.isNone(live)) return yield* featureNotActive
          if (live.value.status !== "deactivating") yield* repo.setStatus(live.value.id, "deactivating", null, yield* now)
          return { activationId: live.value.id, featureVersion: live.value.featureVersion }
        }),
      attachJob: (activationId, jobId) =>
        Effect.flatMap(now, (at) => repo.attachJob(activationId, jobId, at))
    })
  })
)

/**
 * Provisioning's `OnboardingFlows` over the registry's `Onboarding` (same database): the onboard
 * route starts a flow, or answers the job of the one of its `onboardingId` (decision 0575).
 */
export const OnboardingFlowsLive: Layer.Layer<OnboardingFlows, never, Onboarding> = Layer.effect(
  OnboardingFlows,
  Effect.map(Onboarding, (onboarding) => OnboardingFlows.of({ onboard: onboarding.onboard }))
)

/**
 * Provisioning's `LiveResources` over the registry's resources: those live at some time in
 * `[from, to)` (decision 0465), for the resource-hours report.
 */
export const LiveResourcesLive: Layer.Layer<LiveResources, never, SqlClient.SqlClient> = Layer.effect(
  LiveResources,
  Effect.map(ResourcesRepo, (repo) => LiveResources.of({ during: repo.liveDuring }))
).pipe(Layer.provide(ResourcesRepo.Default))

/** Provisioning's `DnsTargets` over the registry's DNS records: what a `domain.add` routes its hostname to. */
export const DnsTargetsLive: Layer.Layer<DnsTargets, never, SqlClient.SqlClient> = Layer.effect(
  DnsTargets,
  Effect.map(SqlClient.SqlClient, (sql) => DnsTargets.of({ target: makeResourceRecordsRepo(sql).dnsTarget }))
)
