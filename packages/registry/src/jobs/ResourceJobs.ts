import {
  APP_CREATE,
  type EdgeResourceType,
  EdgeTeardown,
  JobFailed,
  type JobHandler,
  JobHandlers,
  type JobRow,
  PLATFORM_DEPROVISION,
  PLATFORM_PROVISION,
  STACK_ACTIVATE,
  STACK_DEACTIVATE,
  StackInstancesRepo
} from "@core/provisioning"
import { Clock, Effect, Layer, Option } from "effect"
import { edgeNameOf, shortHash, stackInstanceIdOf } from "./EdgeNames.js"
import { RESOURCE_MAX_ATTEMPTS, ResourceProvisioner } from "./ResourceProvisioner.js"
import { type Environment, type NewResource, ResourceRecords, type ResourceView } from "./ResourceRecords.js"

const RESOURCE_TYPES: ReadonlyArray<EdgeResourceType> = ["worker", "pages", "sql_db", "object_store", "kv", "queue"]
const ENVIRONMENTS: ReadonlyArray<Environment> = ["dev", "stg", "prod"]

const fail = (message: string) => new JobFailed({ message })

const text = (job: JobRow, field: string): Effect.Effect<string, JobFailed> => {
  const value = job.payload[field]
  return typeof value === "string" && value.length > 0 ? Effect.succeed(value) : Effect.fail(fail(`A ${job.type} job needs ${field} in its payload`))
}
const optionalText = (job: JobRow, field: string): string | undefined => {
  const value = job.payload[field]
  return typeof value === "string" && value.length > 0 ? value : undefined
}
const environmentOf = (job: JobRow): Effect.Effect<Environment, JobFailed> => {
  const value = job.payload.environment ?? "prod"
  return ENVIRONMENTS.includes(value as Environment) ? Effect.succeed(value as Environment) : Effect.fail(fail(`Unknown environment ${String(value)}`))
}

/**
 * The resource job types over the `EdgeProvider` and the registry's resources (`ResourceRecords`),
 * every step memoized (decision 0293):
 *
 * - `platform.provision`: the platform is there; its edge worker (`platform`, a `worker` on its
 *   default tenant) recorded; every live resource of the environment that is not active made.
 * - `platform.deprovision`: every live resource (of the environment, when named) removed with its
 *   data and marked `deleted`; its stack instances ended, and once nothing of it is left, what the
 *   edge still lists for it and its custom domains removed (provisioning's `EdgeTeardown`).
 * - `stack.activate`: every resource of the stack version's definition recorded on the entity (the
 *   default tenant unless named) in the environment and made; answers `stackInstanceId`.
 * - `stack.deactivate`: the instance's resources removed (their data with `deleteData`), `deleted`.
 * - `app.create`: `app` a `pages` project, `svc` a `worker`, `fullstack` both (`<app>-api`), with a
 *   `sql_db` (`<app>-db`) when `withDatabase`; on the default tenant in `prod`.
 *
 * The stack instances are provisioning's records (`StackInstancesRepo`). An operator's cancel or
 * force-complete settles the resources a job left unfinished (`settle`).
 */
export const ResourceJobsLive: Layer.Layer<
  JobHandlers,
  never,
  ResourceProvisioner | ResourceRecords | StackInstancesRepo | EdgeTeardown
> = Layer.effect(
  JobHandlers,
  Effect.gen(function*() {
    const records = yield* ResourceRecords
    const provisioner = yield* ResourceProvisioner
    const instances = yield* StackInstancesRepo
    const teardown = yield* EdgeTeardown
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    const platformOf = (platformId: string, live: boolean) =>
      Effect.gen(function*() {
        const found = yield* records.platform(platformId)
        if (Option.isNone(found)) return yield* fail(`Platform ${platformId} not found`)
        if (live && found.value.status !== "active") return yield* fail(`Platform ${platformId} is ${found.value.status}, not active`)
        return found.value
      })

    /** Record resources (memoized by their deterministic edge names), then answer the live rows. */
    const recordAll = (resources: ReadonlyArray<NewResource>) =>
      Effect.forEach(resources, (resource) => records.record(resource))

    const withEntity = (platform: { readonly defaultEntityId: string | null; readonly platformId: string }, entityId: string | undefined) =>
      Effect.gen(function*() {
        const id = entityId ?? platform.defaultEntityId
        if (id === null) return yield* fail(`Platform ${platform.platformId} has no default tenant`)
        if (!(yield* records.liveEntity(platform.platformId, id))) return yield* fail(`Entity ${id} not found in platform ${platform.platformId}`)
        return id
      })

    const summary = (resources: ReadonlyArray<ResourceView>) =>
      resources.map((r) => ({ id: r.id, resourceType: r.resourceType, edgeName: r.edgeName, status: r.status, edgeUrl: r.edgeUrl }))

    const provision: JobHandler = {
      maxAttempts: RESOURCE_MAX_ATTEMPTS,
      run: (job, context) =>
        Effect.gen(function*() {
          const platformId = yield* text(job, "platformId")
          const environment = yield* environmentOf(job)
          const platform = yield* platformOf(platformId, true)
          const entityId = yield* withEntity(platform, optionalText(job, "defaultEntityId"))
          yield* context.step("record", Effect.asVoid(recordAll([{
            platformId,
            entityId,
            stackId: "platform",
            resourceType: "worker",
            serviceName: "platform",
            environment,
            edgeName: edgeNameOf(platform.slug, environment, "platform"),
            config: { planTier: job.payload.planTier ?? null },
            jobId: job.id
          }])))
          yield* context.progress(0.2)
          const pending = (yield* records.live(platformId, { environment })).filter((r) => r.status !== "active")
          yield* provisioner.provision(pending, context, job)
          const after = yield* records.live(platformId, { environment })
          return { platformId, environment, resources: summary(after) }
        })
    }

    const deprovision: JobHandler = {
      maxAttempts: RESOURCE_MAX_ATTEMPTS,
      run: (job, context) =>
        Effect.gen(function*() {
          const platformId = yield* text(job, "platformId")
          const environment = job.payload.environment === undefined ? undefined : yield* environmentOf(job)
          yield* platformOf(platformId, false)
          const resources = yield* records.live(platformId, environment === undefined ? {} : { environment })
          yield* Effect.forEach(resources, (resource) => provisioner.remove(resource, true, context), { discard: true })
          yield* context.progress(0.8)
          // Nothing of the platform left: what the edge still lists for it (made, then its record
          // lost) and its custom domains are removed too.
          if ((yield* records.live(platformId)).length === 0) yield* context.step("edge", teardown.platform(platformId))
          yield* instances.markPlatformDeleted(platformId, environment, yield* now)
          return { platformId, environment: environment ?? null, removed: resources.map((r) => r.id) }
        })
    }

    const activateStack: JobHandler = {
      maxAttempts: RESOURCE_MAX_ATTEMPTS,
      run: (job, context) =>
        Effect.gen(function*() {
          const platformId = yield* text(job, "platformId")
          const stackId = yield* text(job, "stackId")
          const stackVersion = yield* text(job, "stackVersion")
          const environment = yield* environmentOf(job)
          const platform = yield* platformOf(platformId, true)
          const entityId = yield* withEntity(platform, optionalText(job, "entityId"))
          const found = yield* records.stackVersion(stackId, stackVersion)
          if (Option.isNone(found)) return yield* fail(`Stack ${stackId} has no published version ${stackVersion}`)
          const version = found.value
          const unknown = version.resources.find((r) => !RESOURCE_TYPES.includes(r.type as EdgeResourceType))
          if (unknown !== undefined) return yield* fail(`Stack ${stackId} ${stackVersion} lists a resource of unknown type ${unknown.type}`)
          const suffix = entityId === platform.defaultEntityId ? undefined : shortHash(entityId).slice(0, 6)
          const stackInstanceId = stackInstanceIdOf(platformId, version.templateName, entityId, environment)
          const wanted: ReadonlyArray<NewResource> = [...new Map(version.resources.map((r) => [r.name, r])).values()].map((r) => ({
            platformId,
            entityId,
            stackId: version.templateName,
            resourceType: r.type as EdgeResourceType,
            serviceName: r.name,
            environment,
            edgeName: edgeNameOf(platform.slug, environment, r.name, suffix),
            config: r.config,
            jobId: job.id
          }))
          let ids: ReadonlyArray<string> = []
          yield* context.step("record", Effect.gen(function*() {
            const recorded = yield* recordAll(wanted)
            ids = recorded.map((r) => r.id)
            yield* instances.upsertActive({
              id: stackInstanceId,
              platformId,
              stackId: version.templateName,
              stackVersion: version.version,
              entityId,
              environment,
              resourceIds: ids
            }, yield* now)
          }))
          if (ids.length === 0) ids = yield* instances.resourceIds(stackInstanceId)
          yield* context.progress(0.2)
          const resources = yield* records.live(platformId, { ids })
          yield* provisioner.provision(resources.filter((r) => r.status !== "active"), context, job)
          const after = yield* records.live(platformId, { ids })
          return { stackInstanceId, stackId: version.templateName, stackVersion: version.version, entityId, environment, resources: summary(after) }
        })
    }

    const deactivateStack: JobHandler = {
      maxAttempts: RESOURCE_MAX_ATTEMPTS,
      run: (job, context) =>
        Effect.gen(function*() {
          const platformId = yield* text(job, "platformId")
          const stackInstanceId = yield* text(job, "stackInstanceId")
          const deleteData = job.payload.deleteData === true
          if (!(yield* instances.exists(stackInstanceId, platformId))) return yield* fail(`Stack instance ${stackInstanceId} not found`)
          const ids = yield* instances.resourceIds(stackInstanceId)
          const resources = yield* records.live(platformId, { ids })
          yield* Effect.forEach(resources, (resource) => provisioner.remove(resource, deleteData, context), { discard: true })
          yield* instances.markDeleted(stackInstanceId, yield* now)
          return { stackInstanceId, status: "deleted", deleteData, removed: resources.map((r) => r.id) }
        })
    }

    const createApp: JobHandler = {
      maxAttempts: RESOURCE_MAX_ATTEMPTS,
      run: (job, context) =>
        Effect.gen(function*() {
          const platformId = yield* text(job, "platformId")
          const stackId = yield* text(job, "stackId")
          const appName = yield* text(job, "appName")
          const appType = yield* text(job, "appType")
          if (!["app", "svc", "fullstack"].includes(appType)) return yield* fail(`Unknown appType ${appType}`)
          const environment: Environment = "prod"
          const platform = yield* platformOf(platformId, true)
          const entityId = yield* withEntity(platform, undefined)
          const parts: Array<{ type: EdgeResourceType; name: string }> = []
          if (appType === "app" || appType === "fullstack") parts.push({ type: "pages", name: appName })
          if (appType === "svc") parts.push({ type: "worker", name: appName })
          if (appType === "fullstack") parts.push({ type: "worker", name: `${appName}-api` })
          if (job.payload.withDatabase === true) parts.push({ type: "sql_db", name: `${appName}-db` })
          let ids: ReadonlyArray<string> = []
          const record = recordAll(parts.map((part) => ({
            platformId,
            entityId,
            stackId,
            resourceType: part.type,
            serviceName: part.name,
            environment,
            edgeName: edgeNameOf(platform.slug, environment, part.name),
            config: { appName, appType },
            jobId: job.id
          })))
          yield* context.step("record", Effect.map(record, (rows) => {
            ids = rows.map((r) => r.id)
          }))
          if (ids.length === 0) ids = (yield* record).map((r) => r.id)
          yield* context.progress(0.2)
          const resources = yield* records.live(platformId, { ids })
          yield* provisioner.provision(resources.filter((r) => r.status !== "active"), context, job)
          const after = yield* records.live(platformId, { ids })
          return { appName, appType, stackId, resources: summary(after), url: after.find((r) => r.resourceType === "pages")?.edgeUrl ?? null }
        })
    }

    const handlers: ReadonlyArray<readonly [string, JobHandler]> = [
      [PLATFORM_PROVISION, provision],
      [PLATFORM_DEPROVISION, deprovision],
      [STACK_ACTIVATE, activateStack],
      [STACK_DEACTIVATE, deactivateStack],
      [APP_CREATE, createApp]
    ]
    return new Map(handlers.map(([type, handler]) => [type, { ...handler, settle: settleResources(records) }]))
  })
)

/**
 * What an operator's cancel (`failed`) or force-complete (`active`) makes of the resources a job
 * left `pending` or `provisioning` (force-complete: its `failed` ones too; decision 0312).
 */
export const settleResources = (records: ResourceRecords["Type"]): NonNullable<JobHandler["settle"]> => (job, outcome) =>
  Effect.asVoid(records.settleJob(job.id, outcome))
