import type { Registry } from "@core/contracts"
import { type Caller, Cursor, Ids, Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { Platforms, type RowPage } from "./Platforms.js"
import { canUseArea } from "./Policy.js"
import { deletedEntityCannotChange, entityHasChildren, entityNotFound, entitySlugTaken, entityStale, invalidEntityBody, parentEntityNotFound } from "./Errors.js"

const canUse = canUseArea("entities")

/** The deepest an entity may sit: a tree of at most 16 levels (depth 0 to 15). */
export const MAX_ENTITY_DEPTH = 16

/** A row of `registry.entities`. */
export interface EntityRow {
  readonly id: string
  readonly platformId: string
  readonly parentId: string | null
  readonly type: Registry.EntityType
  readonly name: string
  readonly slug: string
  readonly status: Registry.EntityStatus
  readonly depth: number
  /** Bumped by every change (migration 0008): the record's `ETag`. */
  readonly version: number
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly deletedAt: Date | null
}

const toRow = (raw: Record<string, unknown>): EntityRow => ({
  id: raw.id as string,
  platformId: raw.platformId as string,
  parentId: Rows.textOrNull(raw.parentId),
  type: raw.type as Registry.EntityType,
  name: raw.name as string,
  slug: raw.slug as string,
  status: raw.status as Registry.EntityStatus,
  depth: Number(raw.depth),
  version: Number(raw.version),
  createdAt: Rows.toDate(raw.createdAt),
  updatedAt: Rows.toDate(raw.updatedAt),
  deletedAt: Rows.toDateOrNull(raw.deletedAt)
})

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

/** The SQL of `registry.entities` (one recursive query each for ancestors and descendants). */
const makeRepo = (sql: SqlClient.SqlClient) => {
  const columns = sql.literal(`id, platform_id AS "platformId", parent_id AS "parentId", type, name, slug, status, depth, version,
    created_at AS "createdAt", updated_at AS "updatedAt", deleted_at AS "deletedAt"`)
  const rows = <E, R>(query: Effect.Effect<ReadonlyArray<Record<string, unknown>>, E, R>) =>
    query.pipe(Effect.map((found) => found.map(toRow)), Effect.orDie)
  const first = <E, R>(query: Effect.Effect<ReadonlyArray<Record<string, unknown>>, E, R>) =>
    Effect.map(rows(query), (found) => Option.fromNullable(found[0]))
  const filterClauses = (platformId: string, query: Omit<Registry.ListEntitiesQuery, "cursor" | "limit">) => {
    const clauses = [sql`platform_id = ${platformId}`]
    clauses.push(query.status !== undefined ? sql`status = ${query.status}` : sql`status <> 'deleted'`)
    if (query.type !== undefined) clauses.push(sql`type = ${query.type}`)
    if (query.parentId !== undefined) clauses.push(sql`parent_id = ${query.parentId}`)
    return clauses
  }
  return {
    insert: (row: EntityRow) =>
      first(sql<Record<string, unknown>>`INSERT INTO registry.entities
          (id, platform_id, parent_id, type, name, slug, status, depth, created_at, updated_at)
        VALUES (${row.id}, ${row.platformId}, ${row.parentId}, ${row.type}, ${row.name}, ${row.slug}, ${row.status},
          ${row.depth}, ${row.createdAt}, ${row.updatedAt})
        ON CONFLICT DO NOTHING RETURNING ${columns}`),
    find: (platformId: string, id: string) =>
      first(sql<Record<string, unknown>>`SELECT ${columns} FROM registry.entities WHERE platform_id = ${platformId} AND id = ${id}`),
    lock: (platformId: string, id: string) =>
      first(sql<Record<string, unknown>>`SELECT ${columns} FROM registry.entities
        WHERE platform_id = ${platformId} AND id = ${id} FOR UPDATE`),
    /** Rename or set the status, bumping the version once (not again after `deleteTree` in the same change). */
    update: (id: string, name: string, status: Registry.EntityStatus, now: Date) =>
      first(sql<Record<string, unknown>>`UPDATE registry.entities SET name = ${name}, status = ${status}, updated_at = ${now},
          deleted_at = ${status === "deleted" ? now : null},
          version = CASE WHEN deleted_at = ${now} THEN version ELSE version + 1 END
        WHERE id = ${id} RETURNING ${columns}`),
    liveChildren: (id: string) =>
      sql<{ count: unknown }>`SELECT count(*) AS count FROM registry.entities WHERE parent_id = ${id} AND deleted_at IS NULL`.pipe(
        Effect.map((found) => Number(found[0]?.count ?? 0)),
        Effect.orDie
      ),
    /** Soft-delete an entity and every live descendant, in one recursive statement. */
    deleteTree: (id: string, now: Date) =>
      sql`WITH RECURSIVE tree AS (
          SELECT id FROM registry.entities WHERE id = ${id}
          UNION ALL
          SELECT e.id FROM registry.entities e JOIN tree ON e.parent_id = tree.id WHERE e.deleted_at IS NULL
        )
        UPDATE registry.entities SET status = 'deleted', deleted_at = ${now}, updated_at = ${now}, version = version + 1
        WHERE id IN (SELECT id FROM tree)`.pipe(Effect.asVoid, Effect.orDie),
    ancestors: (id: string) =>
      rows(sql<Record<string, unknown>>`WITH RECURSIVE up AS (
          SELECT parent_id AS id FROM registry.entities WHERE id = ${id}
          UNION ALL
          SELECT e.parent_id FROM registry.entities e JOIN up ON e.id = up.id WHERE e.parent_id IS NOT NULL
        )
        SELECT ${columns} FROM registry.entities WHERE id IN (SELECT id FROM up) ORDER BY depth`),
    /**
     * The entity (first) and its live descendants (nearest level first), in one recursive statement
     * carrying the rows (no second pass over the table: decision 0260); empty when the platform has
     * no such entity.
     */
    subtree: (platformId: string, id: string) =>
      rows(sql<Record<string, unknown>>`WITH RECURSIVE down AS (
          SELECT * FROM registry.entities WHERE platform_id = ${platformId} AND id = ${id}
          UNION ALL
          SELECT e.* FROM registry.entities e JOIN down ON e.parent_id = down.id WHERE e.deleted_at IS NULL
        )
        SELECT ${columns} FROM down ORDER BY depth, created_at, id`),
    list: (platformId: string, query: Registry.ListEntitiesQuery, after: { createdAt: Date; id: string } | undefined) => {
      const clauses = filterClauses(platformId, query)
      if (after !== undefined) clauses.push(sql`(created_at, id) > (${after.createdAt}, ${after.id})`)
      return rows(sql<Record<string, unknown>>`SELECT ${columns} FROM registry.entities WHERE ${sql.and(clauses)}
        ORDER BY created_at, id LIMIT ${query.limit + 1}`)
    },
    count: (platformId: string, query: Registry.ListEntitiesQuery) =>
      sql<{ count: unknown }>`SELECT count(*) AS count FROM registry.entities WHERE ${sql.and(filterClauses(platformId, query))}`.pipe(
        Effect.map((found) => Number(found[0]?.count ?? 0)),
        Effect.orDie
      )
  }
}

/** The registry's entities: a platform's tenants and subtenants (seed 002; decision 0230). */
export class Entities extends Effect.Service<Entities>()("@core/registry/Entities", {
  effect: Effect.gen(function*() {
    const platforms = yield* Platforms
    const ids = yield* Ids.Ids
    const sql = yield* SqlClient.SqlClient
    const repo = makeRepo(sql)
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die)) as Effect.Effect<A, E, R>

    /** The platform, if the caller may read it (another tenant's: 404); `write` wants `entities:manage`, else `entities:read`. */
    const platformFor = (caller: Caller, platformId: string, write: boolean) =>
      Effect.flatMap(platforms.get(platformId), (platform) =>
        Effect.as(canUse(caller, platform, write), platform))

    const found = <A>(option: Option.Option<A>) => (Option.isSome(option) ? Effect.succeed(option.value) : Effect.fail(entityNotFound))

    const create = Effect.fn("Entities.create")(function*(caller: Caller, platformId: string, body: Registry.CreateEntityRequest) {
      yield* platformFor(caller, platformId, true)
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
        return Option.isSome(inserted) ? inserted.value : yield* entitySlugTaken
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
    const softDelete = (entity: EntityRow, cascade: boolean, at: Date) =>
      Effect.gen(function*() {
        if (!cascade && (yield* repo.liveChildren(entity.id)) > 0) {
          return yield* entityHasChildren
        }
        yield* repo.deleteTree(entity.id, at)
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
      yield* platformFor(caller, platformId, true)
      return yield* inTransaction(Effect.gen(function*() {
        const entity = yield* lockMatching(platformId, id, ifMatch)
        if (entity.status === "deleted") {
          return yield* deletedEntityCannotChange(body.status ?? "deleted")
        }
        const name = body.name ?? entity.name
        const status = body.status ?? entity.status
        const at = yield* now
        if (status === "deleted") yield* softDelete(entity, false, at)
        return yield* Effect.map(repo.update(entity.id, name, status, at), Option.getOrThrow)
      }))
    })

    const remove = Effect.fn("Entities.remove")(function*(caller: Caller, platformId: string, id: string, cascade: boolean, ifMatch?: string) {
      yield* platformFor(caller, platformId, true)
      yield* inTransaction(Effect.gen(function*() {
        const entity = yield* lockMatching(platformId, id, ifMatch)
        if (entity.deletedAt !== null) return
        yield* softDelete(entity, cascade, yield* now)
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
