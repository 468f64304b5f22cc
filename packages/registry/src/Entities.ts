import type { Registry } from "@core/contracts"
import { type Caller, Cursor, EventOutbox, Ids } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { Platforms, type RowPage } from "./Platforms.js"
import { canUseArea } from "./Policy.js"
import { type EntityRow, makeEntitiesRepo } from "./EntitiesRepo.js"
import { deletedEntityCannotChange, entityHasChildren, entityNotFound, entitySlugTaken, entityStale, invalidEntityBody, parentEntityNotFound } from "./Errors.js"

const canUse = canUseArea("entities")

/** The deepest an entity may sit: a tree of at most 16 levels (depth 0 to 15). */
export const MAX_ENTITY_DEPTH = 16

/** An entity as the registry answers it (seed 002's EntityRecord). */
export const toEntityRecord = (row: EntityRow): Registry.EntityRecord => ({
  id: row.id,
  platformId: row.platformId,
  parentId: row.parentId,
  type: row.type,
  name: row.name,
  slug: row.slug,
  status: row.status,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  deletedAt: row.deletedAt === null ? null : row.deletedAt.toISOString()
})

/** An entity's `ETag`: its version, bumped by every change (decision 0261, as a platform's: decision 0229). */
export const entityEtagOf = (row: EntityRow): string => `"${row.version}"`

/**
 * Whether an `If-Match` lets a change of the entity through: absent or `*` does; otherwise one of its
 * comma-separated tags (a weak `W/` prefix ignored) must be the entity's current `ETag`.
 */
export const entityMatches = (ifMatch: string | undefined, row: EntityRow): boolean => {
  if (ifMatch === undefined || ifMatch.trim() === "*") return true
  const current = entityEtagOf(row)
  return ifMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === current)
}

export { entityNotFound }
export type { EntityRow }

/** The registry's entities: a platform's tenants and subtenants (seed 002; decision 0230). */
export class Entities extends Effect.Service<Entities>()("@core/registry/Entities", {
  effect: Effect.gen(function*() {
    const platforms = yield* Platforms
    const ids = yield* Ids.Ids
    const sql = yield* SqlClient.SqlClient
    const repo = makeEntitiesRepo(sql)
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die)) as Effect.Effect<A, E, R>

    /** The platform, if the caller may read it (another tenant's: 404); `write` wants `entities:manage`, else `entities:read`. */
    /** Record an entity's event in the change's transaction (a platform outside any organization has none). */
    const recordEvent = (type: "tenant.created" | "tenant.deleted", organizationId: string | null, row: EntityRow) =>
      organizationId === null ? Effect.void : EventOutbox.record({ type, organizationId, platformId: row.platformId, data: toEntityRecord(row) })

    const platformFor = (caller: Caller, platformId: string, write: boolean) =>
      Effect.flatMap(platforms.get(platformId), (platform) =>
        Effect.as(canUse(caller, platform, write), platform))

    const found = <A>(option: Option.Option<A>) => (Option.isSome(option) ? Effect.succeed(option.value) : Effect.fail(entityNotFound))

    const create = Effect.fn("Entities.create")(function*(caller: Caller, platformId: string, body: Registry.CreateEntityRequest) {
      const platform = yield* platformFor(caller, platformId, true)
      return yield* inTransaction(Effect.gen(function*() {
        let depth = 0
        if (body.type === "tenant" && body.parentId !== undefined) return yield* invalidEntityBody("parentId", "A tenant sits at the root: no parentId")
        if (body.type === "subtenant") {
          if (body.parentId === undefined) return yield* invalidEntityBody("parentId", "A subtenant needs a parentId")
          const parent = yield* repo.lock(platformId, body.parentId)
          if (Option.isNone(parent) || parent.value.deletedAt !== null) return yield* parentEntityNotFound
          depth = parent.value.depth + 1
          if (depth >= MAX_ENTITY_DEPTH) return yield* invalidEntityBody("parentId", `An entity tree is at most ${MAX_ENTITY_DEPTH} levels deep`)
        }
        const at = yield* now
        const inserted = yield* repo.insert({
          id: yield* ids.make("ent"), platformId, parentId: body.parentId ?? null, type: body.type, name: body.name,
          slug: body.slug, status: "active", depth, version: 1, createdAt: at, updatedAt: at, deletedAt: null
        })
        if (Option.isNone(inserted)) return yield* entitySlugTaken
        yield* recordEvent("tenant.created", platform.organizationId, inserted.value)
        return inserted.value
      }))
    })

    const get = Effect.fn("Entities.get")(function*(caller: Caller, platformId: string, id: string) {
      yield* platformFor(caller, platformId, false)
      return yield* Effect.flatMap(repo.find(platformId, id), found)
    })

    const list = Effect.fn("Entities.list")(function*(caller: Caller, platformId: string, query: Registry.ListEntitiesQuery) {
      yield* platformFor(caller, platformId, false)
      const key = yield* Cursor.decodeOptional(Cursor.CreatedAtId, query.cursor)
      const after = key === undefined ? undefined : { createdAt: new Date(key.createdAt), id: key.id }
      const [rows, total] = yield* Effect.all([repo.list(platformId, query, after), repo.count(platformId, query)])
      const page = Cursor.page(rows, query.limit, (row) => ({ createdAt: row.createdAt.toISOString(), id: row.id }))
      return { data: page.data, pagination: { hasMore: page.hasMore, nextCursor: page.nextCursor, total } } satisfies RowPage<EntityRow>
    })

    /** Soft-delete under the entity's lock: 409 while it has live children, unless `cascade`. */
    const softDelete = (entity: EntityRow, cascade: boolean, at: Date, organizationId: string | null) =>
      Effect.gen(function*() {
        if (!cascade && (yield* repo.liveChildren(entity.id)) > 0) {
          return yield* entityHasChildren
        }
        yield* repo.deleteTree(entity.id, at)
        yield* recordEvent("tenant.deleted", organizationId, { ...entity, status: "deleted", deletedAt: at, updatedAt: at })
      })

    /** The entity under its row lock, if `If-Match` names its current `ETag` (412 otherwise). */
    const lockMatching = (platformId: string, id: string, ifMatch: string | undefined) =>
      Effect.flatMap(Effect.flatMap(repo.lock(platformId, id), found), (entity) =>
        entityMatches(ifMatch, entity) ? Effect.succeed(entity) : Effect.fail(entityStale))

    const update = Effect.fn("Entities.update")(function*(
      caller: Caller,
      platformId: string,
      id: string,
      body: Registry.UpdateEntityRequest,
      ifMatch?: string
    ) {
      const platform = yield* platformFor(caller, platformId, true)
      return yield* inTransaction(Effect.gen(function*() {
        const entity = yield* lockMatching(platformId, id, ifMatch)
        if (entity.status === "deleted") {
          return yield* deletedEntityCannotChange(body.status ?? "deleted")
        }
        const name = body.name ?? entity.name
        const status = body.status ?? entity.status
        const at = yield* now
        if (status === "deleted") yield* softDelete(entity, false, at, platform.organizationId)
        return yield* Effect.map(repo.update(entity.id, name, status, at), Option.getOrThrow)
      }))
    })

    const remove = Effect.fn("Entities.remove")(function*(caller: Caller, platformId: string, id: string, cascade: boolean, ifMatch?: string) {
      const platform = yield* platformFor(caller, platformId, true)
      yield* inTransaction(Effect.gen(function*() {
        const entity = yield* lockMatching(platformId, id, ifMatch)
        if (entity.deletedAt !== null) return
        yield* softDelete(entity, cascade, yield* now, platform.organizationId)
      }))
    })

    const ancestors = Effect.fn("Entities.ancestors")(function*(caller: Caller, platformId: string, id: string) {
      const entity = yield* get(caller, platformId, id)
      return yield* repo.ancestors(entity.id)
    })

    /** The live descendants, nearest level first: the platform's read, then one statement (decision 0260). */
    const descendants = Effect.fn("Entities.descendants")(function*(caller: Caller, platformId: string, id: string) {
      yield* platformFor(caller, platformId, false)
      const [entity, ...below] = yield* repo.subtree(platformId, id)
      return entity === undefined ? yield* entityNotFound : below
    })

    return { create, get, list, update, remove, ancestors, descendants } as const
  }),
  dependencies: [Platforms.Default]
}) {}
