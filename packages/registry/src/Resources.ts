import type { Registry } from "@core/contracts"
import { type Caller, Cursor, Ids } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { Platforms, type RowPage } from "./Platforms.js"
import { canUseArea } from "./Policy.js"

const canUse = canUseArea("resources")
/** The routes below a resource (its secrets) want `secrets:read` / `secrets:manage`. */
const canUseSecrets = canUseArea("secrets")
import { type ResourceFilter, type ResourceRow, ResourcesRepo } from "./ResourcesRepo.js"
import { deletedResourceCannotChange, edgeNameTaken, entityNotFound, resourceNotFound, resourceStale } from "./Errors.js"

/** A resource as the registry answers it (seed 002's ResourceRecord, with `stackId` as given). */
export const toResourceRecord = (row: ResourceRow): Registry.ResourceRecord => ({
  id: row.id,
  platformId: row.platformId,
  entityId: row.entityId,
  stackId: row.stackId,
  resourceType: row.resourceType,
  serviceName: row.serviceName,
  environment: row.environment,
  edgeName: row.edgeName,
  edgeId: row.edgeId,
  edgeUrl: row.edgeUrl,
  status: row.status,
  provisionJobId: row.provisionJobId,
  config: row.config,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  deletedAt: row.deletedAt === null ? null : row.deletedAt.toISOString()
})

/** A resource's `ETag`: its version, bumped by every change (as a platform's, decision 0229). */
export const resourceEtagOf = (row: ResourceRow): string => `"${row.version}"`

/** Whether `If-Match` admits the resource: absent or `*`, else one of its tags (weak `W/` ignored) is the current one. */
const matches = (ifMatch: string | undefined, row: ResourceRow): boolean => {
  if (ifMatch === undefined || ifMatch.trim() === "*") return true
  const current = resourceEtagOf(row)
  return ifMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === current)
}

export { resourceNotFound }

/**
 * The registry's resources (seed 002): a platform's edge resources, each of one live entity,
 * served under both path families with the same answers (decisions 0240–0243). The platform's
 * owner and admins write, members read, operators and the service key do everything; another
 * tenant's ids answer 404.
 */
export class Resources extends Effect.Service<Resources>()("@core/registry/Resources", {
  effect: Effect.gen(function*() {
    const platforms = yield* Platforms
    const repo = yield* ResourcesRepo
    const ids = yield* Ids.Ids
    const sql = yield* SqlClient.SqlClient
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die)) as Effect.Effect<A, E, R>

    /** The platform, if the caller may read it (another tenant's: 404); `write` wants `resources:manage`, else `resources:read`. */
    const platformFor = (caller: Caller, platformId: string, write: boolean) =>
      Effect.flatMap(platforms.get(platformId), (platform) => Effect.as(canUse(caller, platform, write), platform))

    const found = (option: Option.Option<ResourceRow>) => (Option.isSome(option) ? Effect.succeed(option.value) : Effect.fail(resourceNotFound))

    const page = Effect.fnUntraced(function*(platformId: string, filter: ResourceFilter, query: { cursor?: string | undefined; limit: number }) {
      const key = yield* Cursor.decodeOptional(Cursor.CreatedAtId, query.cursor)
      const after = key === undefined ? undefined : { createdAt: new Date(key.createdAt), id: key.id }
      const [rows, total] = yield* Effect.all([repo.list(platformId, filter, after, query.limit + 1), repo.count(platformId, filter)])
      const cut = Cursor.page(rows, query.limit, (row) => ({ createdAt: row.createdAt.toISOString(), id: row.id }))
      return { data: cut.data, pagination: { hasMore: cut.hasMore, nextCursor: cut.nextCursor, total } } satisfies RowPage<ResourceRow>
    })

    const list = Effect.fn("Resources.list")(function*(caller: Caller, platformId: string, query: Registry.ListResourcesQuery) {
      yield* platformFor(caller, platformId, false)
      const { cursor: _, limit: __, ...filter } = query
      return yield* page(platformId, filter, query)
    })

    /** An entity's resources: the entity must be of the platform (404 otherwise; a deleted one still lists its past). */
    const listForEntity = Effect.fn("Resources.listForEntity")(
      function*(caller: Caller, platformId: string, entityId: string, query: Registry.ListEntityResourcesQuery) {
        yield* platformFor(caller, platformId, false)
        if (!(yield* repo.entityExists(platformId, entityId))) return yield* entityNotFound
        const { cursor: _, limit: __, ...filter } = query
        return yield* page(platformId, { ...filter, entityId }, query)
      }
    )

    /** Record a `pending` resource of a live entity of the platform; a live resource with its edgeName: 409. */
    const create = Effect.fn("Resources.create")(
      function*(caller: Caller, platformId: string, entityId: string, body: Registry.CreateResourceRequest) {
        yield* platformFor(caller, platformId, true)
        if (!(yield* repo.liveEntity(platformId, entityId))) return yield* entityNotFound
        const at = yield* now
        const inserted = yield* repo.insert({
          id: yield* ids.make("res"),
          platformId,
          entityId,
          stackId: body.stackId,
          resourceType: body.resourceType,
          serviceName: body.serviceName,
          environment: body.environment,
          edgeName: body.edgeName,
          edgeId: null,
          edgeUrl: body.edgeUrl ?? null,
          status: "pending",
          provisionJobId: null,
          config: {},
          version: 1,
          createdAt: at,
          updatedAt: at,
          deletedAt: null
        })
        return Option.isSome(inserted) ? inserted.value : yield* edgeNameTaken
      }
    )

    const get = Effect.fn("Resources.get")(function*(caller: Caller, platformId: string, id: string) {
      yield* platformFor(caller, platformId, false)
      return yield* Effect.flatMap(repo.find(platformId, id), found)
    })

    /**
     * `PATCH`: any seed status and the edge URL, on a live resource (a deleted one: 409
     * `INVALID_STATE`), under its row lock; a resourceStale `If-Match`: 412. `deleted` soft-deletes it.
     */
    const update = Effect.fn("Resources.update")(
      function*(caller: Caller, platformId: string, id: string, body: Registry.UpdateResourceRequest, ifMatch?: string) {
        yield* platformFor(caller, platformId, true)
        return yield* inTransaction(Effect.gen(function*() {
          const resource = yield* Effect.flatMap(repo.lock(platformId, id), found)
          if (!matches(ifMatch, resource)) return yield* resourceStale
          if (resource.deletedAt !== null) {
            return yield* deletedResourceCannotChange(body.status ?? "deleted")
          }
          const status = body.status ?? resource.status
          const edgeUrl = body.edgeUrl ?? resource.edgeUrl
          if (status === resource.status && edgeUrl === resource.edgeUrl) return resource
          return yield* repo.update(resource.id, status, edgeUrl, yield* now)
        }))
      }
    )

    /** Soft delete: `status` `deleted`, `deletedAt` set, its edge name free again; deleting a deleted one succeeds. */
    const remove = Effect.fn("Resources.remove")(function*(caller: Caller, platformId: string, id: string) {
      yield* platformFor(caller, platformId, true)
      yield* inTransaction(Effect.gen(function*() {
        const resource = yield* Effect.flatMap(repo.lock(platformId, id), found)
        if (resource.deletedAt === null) yield* repo.update(resource.id, "deleted", resource.edgeUrl, yield* now)
      }))
    })

    /**
     * The live resource of an edge name, if the caller may read its platform: a session or key of
     * another tenant gets 404 as if there were none; operators and the service key see any.
     */
    const lookup = Effect.fn("Resources.lookup")(function*(caller: Caller, edgeName: string) {
      const resource = yield* Effect.flatMap(repo.findLiveByEdgeName(edgeName), found)
      yield* platformFor(caller, resource.platformId, false).pipe(Effect.catchTag("NotFound", () => Effect.fail(resourceNotFound)))
      return resource
    })

    /** A live resource of the platform, for routes below a resource (secrets, `secrets:*`): a deleted one is gone (404). */
    const liveFor = Effect.fn("Resources.liveFor")(function*(caller: Caller, platformId: string, id: string, write: boolean) {
      yield* Effect.flatMap(platforms.get(platformId), (platform) => canUseSecrets(caller, platform, write))
      const resource = yield* Effect.flatMap(repo.find(platformId, id), found)
      return resource.deletedAt === null ? resource : yield* resourceNotFound
    })

    /** The ids of the platform's live resources of a stack template, oldest first (the onboard job's). */
    const liveIdsOfStack = (platformId: string, stackId: string) => repo.liveIdsOfStack(platformId, stackId)

    return { list, listForEntity, create, get, update, remove, lookup, liveFor, liveIdsOfStack } as const
  }),
  dependencies: [ResourcesRepo.Default]
}) {}
