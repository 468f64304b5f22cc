import { createHash } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Clock, Context, Effect, Layer, Option } from "effect"
import { type JobContext, JobFailed, type JobHandler, JobHandlers } from "./JobHandlers.js"
import type { JobRow } from "./Jobs.js"
import { EdgeProvider, type EdgeResourceType } from "./ports/EdgeProvider.js"
import { type Environment, type NewResource, ResourceRecords, type ResourceView } from "./ports/ResourceRecords.js"

/** The job types of resources (seed 001). */
export const PLATFORM_PROVISION = "platform.provision"
export const PLATFORM_DEPROVISION = "platform.deprovision"
export const STACK_ACTIVATE = "stack.activate"
export const STACK_DEACTIVATE = "stack.deactivate"
export const APP_CREATE = "app.create"
export const DOMAIN_ADD = "domain.add"

/** Attempts of a resource job: its steps are memoized, so a retry resumes. */
export const RESOURCE_MAX_ATTEMPTS = 5

const RESOURCE_TYPES: ReadonlyArray<EdgeResourceType> = ["worker", "pages", "sql_db", "object_store", "kv", "queue"]
const ENVIRONMENTS: ReadonlyArray<Environment> = ["dev", "stg", "prod"]

/** The longest edge name (a DNS label). */
const EDGE_NAME_MAX = 63

const label = (text: string) => text.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/-+/g, "-")

/**
 * A resource's edge name: `<platform slug>-<environment>-<name>` as a DNS label, deterministic so
 * that a retried step finds what it made (the one definition: the registry's onboard job uses it). For
 * an entity other than the platform's default tenant, 6 hexadecimal characters of its id follow.
 */
export const edgeNameOf = (slug: string, environment: string, name: string, entitySuffix?: string): string => {
  const suffix = entitySuffix === undefined ? "" : `-${entitySuffix}`
  const base = label(`${slug}-${environment}-${name}`).slice(0, EDGE_NAME_MAX - suffix.length).replace(/-+$/, "")
  return `${base}${suffix}`
}

const shortHash = (...parts: ReadonlyArray<string>) => createHash("sha256").update(parts.join("\u0000")).digest("hex")

/** A stack instance's id: one per platform, stack, entity and environment (activating it again is the same instance). */
export const stackInstanceIdOf = (platformId: string, stackId: string, entityId: string, environment: string): string =>
  `sti_${shortHash(platformId, stackId, entityId, environment).slice(0, 26)}`

/** A custom domain's id: one per platform and hostname. */
export const domainIdOf = (platformId: string, hostname: string): string => `dom_${shortHash(platformId, hostname.toLowerCase()).slice(0, 26)}`

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

/** Whether this attempt is the job's last: a failure then fails its resources too. */
const lastAttempt = (job: JobRow) => job.attempts >= Math.min(job.maxAttempts, RESOURCE_MAX_ATTEMPTS)

/**
 * Making registry resources real on the edge (the resource jobs, and the registry's onboarding):
 * each resource in a memoized step `create:<edgeName>` moved `provisioning`, made, then `active`
 * with its edge id and URL; `remove` deletes one and marks it `deleted`.
 */
export class ResourceProvisioner extends Context.Tag("@core/provisioning/ResourceProvisioner")<ResourceProvisioner, {
  readonly provision: (
    resources: ReadonlyArray<ResourceView>,
    context: JobContext,
    job: JobRow
  ) => Effect.Effect<void, JobFailed>
  readonly remove: (resource: ResourceView, deleteData: boolean, context: JobContext) => Effect.Effect<void, JobFailed>
  /** Provision the platform's live resources of those ids that are not active yet; answers them all afterwards. */
  readonly provisionIds: (
    platformId: string,
    ids: ReadonlyArray<string>,
    context: JobContext,
    job: JobRow
  ) => Effect.Effect<ReadonlyArray<ResourceView>, JobFailed>
}>() {
  static readonly Live: Layer.Layer<ResourceProvisioner, never, EdgeProvider | ResourceRecords> = Layer.effect(
    ResourceProvisioner,
    Effect.gen(function*() {
      const edge = yield* EdgeProvider
      const records = yield* ResourceRecords
      const provisionOne = (resource: ResourceView, context: JobContext, job: JobRow) =>
        context.step(
          `create:${resource.edgeName}`,
          Effect.gen(function*() {
            // The job working on it is recorded: an operator's cancel or force-complete settles it (decision 0312).
            if (resource.status !== "provisioning") yield* records.move(resource.id, "provisioning", { jobId: job.id })
            const handle = yield* edge.createResource({
              platformId: resource.platformId,
              resourceType: resource.resourceType,
              edgeName: resource.edgeName,
              environment: resource.environment,
              config: resource.config
            })
            yield* records.move(resource.id, "active", { ...handle, jobId: job.id })
          }).pipe(Effect.tapError(() => (lastAttempt(job) ? records.move(resource.id, "failed") : Effect.void)))
        )
      const provision = (resources: ReadonlyArray<ResourceView>, context: JobContext, job: JobRow) =>
        Effect.forEach(resources.filter((resource) => resource.status !== "deleted"), (resource) => provisionOne(resource, context, job), {
          discard: true
        })
      return ResourceProvisioner.of({
        provision,
        provisionIds: (platformId, ids, context, job) =>
          Effect.gen(function*() {
            const resources = yield* records.live(platformId, { ids })
            yield* provision(resources.filter((r) => r.status !== "active"), context, job)
            return yield* records.live(platformId, { ids })
          }),
        remove: (resource, deleteData, context) =>
          context.step(
            `delete:${resource.edgeName}`,
            Effect.gen(function*() {
              yield* edge.deleteResource(
                { platformId: resource.platformId, resourceType: resource.resourceType, edgeName: resource.edgeName },
                { deleteData }
              )
              yield* records.move(resource.id, "deleted")
            })
          )
      })
    })
  )
}

/**
 * The resource job types over the `EdgeProvider` and the registry's resources (`ResourceRecords`),
 * every step memoized (decision 0293):
 *
 * - `platform.provision`: the platform is there; its edge worker (`platform`, a `worker` on its
 *   default tenant) recorded; every live resource of the environment that is not active made.
 * - `platform.deprovision`: every live resource (of the environment, when named) removed with its
 *   data and marked `deleted`; its stack instances and custom domains removed too.
 * - `stack.activate`: every resource of the stack version's definition recorded on the entity (the
 *   default tenant unless named) in the environment and made; answers `stackInstanceId`.
 * - `stack.deactivate`: the instance's resources removed (their data with `deleteData`), `deleted`.
 * - `app.create`: `app` a `pages` project, `svc` a `worker`, `fullstack` both (`<app>-api`), with a
 *   `sql_db` (`<app>-db`) when `withDatabase`; on the default tenant in `prod`.
 * - `domain.add`: the domain recorded (`pending`), its hostname routed on the edge to the DNS
 *   record's target, then `active` and `verified` once the edge says so.
 */
export const ResourceJobsLive: Layer.Layer<JobHandlers, never, EdgeProvider | ResourceRecords | SqlClient.SqlClient> = Layer.effect(
  JobHandlers,
  Effect.gen(function*() {
    const edge = yield* EdgeProvider
    const records = yield* ResourceRecords
    const provisioner = yield* ResourceProvisioner
    const sql = yield* SqlClient.SqlClient
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
          if ((yield* records.live(platformId)).length === 0) {
            yield* context.step("edge", Effect.gen(function*() {
              const left = yield* edge.listResources(platformId)
              yield* Effect.forEach(left, (listed) =>
                edge.deleteResource({ platformId, resourceType: listed.resourceType, edgeName: listed.edgeName }, { deleteData: true }), { discard: true })
              const domains = yield* sql<{ id: string; edgeId: string | null }>`SELECT id, edge_id AS "edgeId" FROM provisioning.domains
                WHERE platform_id = ${platformId} AND deleted_at IS NULL`.pipe(Effect.orDie)
              yield* Effect.forEach(domains, (domain) =>
                Effect.gen(function*() {
                  if (domain.edgeId !== null) yield* edge.removeCustomHostname({ platformId, edgeId: domain.edgeId })
                  const at = yield* now
                  yield* sql`UPDATE provisioning.domains SET status = 'deleted', deleted_at = ${at}, updated_at = ${at}
                    WHERE id = ${domain.id}`.pipe(Effect.orDie)
                }), { discard: true })
            }))
          }
          const at = yield* now
          yield* (environment === undefined
            ? sql`UPDATE provisioning.stack_instances SET status = 'deleted', updated_at = ${at}
                WHERE platform_id = ${platformId} AND status = 'active'`
            : sql`UPDATE provisioning.stack_instances SET status = 'deleted', updated_at = ${at}
                WHERE platform_id = ${platformId} AND status = 'active' AND environment = ${environment}`).pipe(Effect.orDie)
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
            const at = yield* now
            yield* sql`INSERT INTO provisioning.stack_instances
                (id, platform_id, stack_id, stack_version, entity_id, environment, status, resource_ids, created_at, updated_at)
              VALUES (${stackInstanceId}, ${platformId}, ${version.templateName}, ${version.version}, ${entityId}, ${environment}, 'active',
                ${JSON.stringify(ids)}::jsonb, ${at}, ${at})
              ON CONFLICT (id) DO UPDATE SET stack_version = EXCLUDED.stack_version, status = 'active',
                resource_ids = EXCLUDED.resource_ids, updated_at = EXCLUDED.updated_at`.pipe(Effect.orDie)
          }))
          if (ids.length === 0) ids = yield* instanceResourceIds(stackInstanceId)
          yield* context.progress(0.2)
          const resources = yield* records.live(platformId, { ids })
          yield* provisioner.provision(resources.filter((r) => r.status !== "active"), context, job)
          const after = yield* records.live(platformId, { ids })
          return { stackInstanceId, stackId: version.templateName, stackVersion: version.version, entityId, environment, resources: summary(after) }
        })
    }

    const instanceResourceIds = (id: string) =>
      sql<{ resourceIds: unknown }>`SELECT resource_ids AS "resourceIds" FROM provisioning.stack_instances WHERE id = ${id}`.pipe(
        Effect.orDie,
        Effect.map((rows) => {
          const raw = rows[0]?.resourceIds
          const ids = typeof raw === "string" ? JSON.parse(raw) : raw
          return Array.isArray(ids) ? (ids as ReadonlyArray<string>) : []
        })
      )

    const deactivateStack: JobHandler = {
      maxAttempts: RESOURCE_MAX_ATTEMPTS,
      run: (job, context) =>
        Effect.gen(function*() {
          const platformId = yield* text(job, "platformId")
          const stackInstanceId = yield* text(job, "stackInstanceId")
          const deleteData = job.payload.deleteData === true
          const instance = yield* sql<{ id: string }>`SELECT id FROM provisioning.stack_instances
            WHERE id = ${stackInstanceId} AND platform_id = ${platformId}`.pipe(Effect.orDie)
          if (instance.length === 0) return yield* fail(`Stack instance ${stackInstanceId} not found`)
          const ids = yield* instanceResourceIds(stackInstanceId)
          const resources = yield* records.live(platformId, { ids })
          yield* Effect.forEach(resources, (resource) => provisioner.remove(resource, deleteData, context), { discard: true })
          const at = yield* now
          yield* sql`UPDATE provisioning.stack_instances SET status = 'deleted', updated_at = ${at} WHERE id = ${stackInstanceId}`.pipe(Effect.orDie)
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

    const addDomain: JobHandler = {
      maxAttempts: RESOURCE_MAX_ATTEMPTS,
      run: (job, context) =>
        Effect.gen(function*() {
          const platformId = yield* text(job, "platformId")
          const hostname = (yield* text(job, "customHostname")).toLowerCase()
          const dnsRecordId = yield* text(job, "targetDnsRecordId")
          yield* platformOf(platformId, true)
          const target = yield* records.dnsTarget(platformId, dnsRecordId)
          if (Option.isNone(target)) return yield* fail(`DNS record ${dnsRecordId} not found in platform ${platformId}`)
          const id = domainIdOf(platformId, hostname)
          yield* context.step("record", Effect.gen(function*() {
            const at = yield* now
            const taken = yield* sql<{ id: string }>`SELECT id FROM provisioning.domains
              WHERE hostname = ${hostname} AND deleted_at IS NULL AND id <> ${id}`.pipe(Effect.orDie)
            if (taken.length > 0) return yield* fail(`The hostname ${hostname} is taken`)
            yield* sql`INSERT INTO provisioning.domains (id, platform_id, organization_id, hostname, target_dns_record_id, target, status,
                verification_status, job_id, created_at, updated_at)
              VALUES (${id}, ${platformId}, ${job.organizationId}, ${hostname}, ${dnsRecordId}, ${target.value}, 'pending', 'pending',
                ${job.id}, ${at}, ${at})
              ON CONFLICT (id) DO UPDATE SET target_dns_record_id = EXCLUDED.target_dns_record_id, target = EXCLUDED.target,
                status = 'pending', verification_status = 'pending', job_id = EXCLUDED.job_id, deleted_at = NULL, updated_at = EXCLUDED.updated_at`.pipe(
              Effect.orDie
            )
          }))
          yield* context.progress(0.3)
          let status: "pending" | "active" = "pending"
          yield* context.step("hostname", Effect.gen(function*() {
            const routed = yield* edge.addCustomHostname({ platformId, hostname, target: target.value })
            status = routed.status
            const at = yield* now
            yield* sql`UPDATE provisioning.domains SET edge_id = ${routed.edgeId}, status = ${routed.status},
                verification_status = ${routed.status === "active" ? "verified" : "pending"}, updated_at = ${at}
              WHERE id = ${id}`.pipe(Effect.orDie)
          }).pipe(Effect.tapError(() =>
            lastAttempt(job)
              ? Effect.flatMap(now, (at) =>
                sql`UPDATE provisioning.domains SET status = 'failed', verification_status = 'failed', updated_at = ${at} WHERE id = ${id}`.pipe(
                  Effect.orDie
                ))
              : Effect.void
          )))
          const row = yield* sql<{ status: string; verificationStatus: string }>`SELECT status, verification_status AS "verificationStatus"
            FROM provisioning.domains WHERE id = ${id}`.pipe(Effect.orDie)
          return { domainId: id, hostname, status: row[0]?.status ?? status, verificationStatus: row[0]?.verificationStatus ?? "pending" }
        })
    }

    return new Map<string, JobHandler>([
      [PLATFORM_PROVISION, provision],
      [PLATFORM_DEPROVISION, deprovision],
      [STACK_ACTIVATE, activateStack],
      [STACK_DEACTIVATE, deactivateStack],
      [APP_CREATE, createApp],
      [DOMAIN_ADD, addDomain]
    ])
  })
).pipe(Layer.provide(ResourceProvisioner.Live))
