import type { Registry } from "@core/contracts"
import { type Caller, type Callers, type Conflict, Cursor, EventOutbox, type Forbidden, Ids, type InvalidState, type NotFound, Policy, type PreconditionFailed, type ValidationError } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { platformConflict, platformNotFound, platformStale } from "./Errors.js"
import * as Lifecycle from "./Lifecycle.js"
import { type LifecycleEventRow, type PlatformRow, PlatformsRepo, type PlatformTier } from "./PlatformsRepo.js"
import { canManage, canOperate, canRead, canSee, listScope } from "./Policy.js"
import { PlatformCreated } from "./ports/PlatformCreated.js"
import { PlatformStatusSink } from "./ports/PlatformStatusSink.js"

/** A new platform. Platforms created for an organization by identity's setup start on `free`. */
export interface CreatePlatformInput {
  readonly name: string
  readonly slug: string
  /** @default "starter" (the seed's default for a platform created in the registry) */
  readonly tier?: PlatformTier
  readonly organizationId?: string | null
  readonly ownerUserId?: string | null
}

/** A page of rows, as the registry's `Page<T>` wants it. */
export interface RowPage<A> {
  readonly data: ReadonlyArray<A>
  readonly pagination: { readonly hasMore: boolean; readonly nextCursor: string | null; readonly total: number }
}

const iso = (date: Date | null) => (date === null ? null : date.toISOString())

/** A platform as the registry answers it (seed 002's PlatformRecord). */
export const toRecord = (row: PlatformRow): Registry.PlatformRecord => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  status: row.status,
  tier: row.tier,
  organizationId: row.organizationId,
  ownerUserId: row.ownerUserId,
  edgeAccountId: row.edgeAccountId,
  repoName: row.repoName,
  paymentCustomerId: row.paymentCustomerId,
  cancelledAt: iso(row.cancelledAt),
  cancellationReason: row.cancellationReason,
  suspendedAt: iso(row.suspendedAt),
  suspensionReason: row.suspensionReason,
  trialEndsAt: iso(row.trialEndsAt),
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  deletedAt: iso(row.deletedAt)
})

/** A lifecycle event as the registry answers it (seed 002's LifecycleEvent). */
export const toEventRecord = (row: LifecycleEventRow): Registry.LifecycleEvent => ({
  ...row,
  createdAt: row.createdAt.toISOString()
})

const keyOf = (row: { readonly createdAt: Date; readonly id: string }) => ({ createdAt: row.createdAt.toISOString(), id: row.id })
const afterOf = (cursor: string | undefined) =>
  Effect.map(Cursor.decodeOptional(Cursor.CreatedAtId, cursor), (key) =>
    key === undefined ? undefined : { createdAt: new Date(key.createdAt), id: key.id })

type Failure = NotFound | Forbidden | InvalidState | PreconditionFailed

/** A platform's `ETag`: its version, bumped by every change (decision 0229). */
export const etagOf = (row: PlatformRow): string => `"${row.version}"`

/**
 * Whether an `If-Match` header admits the platform: absent or `*` always; else one of its
 * comma-separated tags (a weak `W/` prefix ignored) must be the platform's current `ETag`.
 */
export const matches = (ifMatch: string | undefined, row: PlatformRow): boolean => {
  if (ifMatch === undefined || ifMatch.trim() === "*") return true
  const current = etagOf(row)
  return ifMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === current)
}

/** Whether a platform's callers are refused (451 at the gateway): suspended, deleted, or cancelled while suspended. */
export const isBlocked = (row: Pick<PlatformRow, "status" | "suspendedAt">): boolean =>
  row.status === "suspended" || row.status === "deleted" || (row.status === "cancelled" && row.suspendedAt !== null)

const requireMatch = (ifMatch: string | undefined, row: PlatformRow) => (matches(ifMatch, row) ? Effect.void : Effect.fail(platformStale))

/** The registry's platforms: creation, reads, updates and the lifecycle (DESIGN §7). */
export class Platforms extends Effect.Service<Platforms>()("@core/registry/Platforms", {
  effect: Effect.gen(function*() {
    const repo = yield* PlatformsRepo
    const ids = yield* Ids.Ids
    const sql = yield* SqlClient.SqlClient
    const sink = yield* Effect.serviceOption(PlatformStatusSink)
    const onCreated = yield* Effect.serviceOption(PlatformCreated)
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die)) as Effect.Effect<A, E, R>

    /** Create an `active` platform and its default tenant in one transaction; `Conflict` when the slug is taken or the organization has one. */
    const create: (input: CreatePlatformInput) => Effect.Effect<PlatformRow, Conflict> = Effect.fn("Platforms.create")(
      function*(input: CreatePlatformInput) {
        const id = yield* ids.make("plt")
        const at = yield* now
        const inserted = yield* inTransaction(Effect.gen(function*() {
          const row = yield* repo.insert({
            id,
            organizationId: input.organizationId ?? null,
            ownerUserId: input.ownerUserId ?? null,
            name: input.name,
            slug: input.slug,
            tier: input.tier ?? "starter",
            now: at
          })
          // Every platform has its default tenant from its first moment (decision 0230).
          if (Option.isSome(row)) {
            yield* repo.insertDefaultTenant(row.value.id, yield* ids.make("ent"), at)
            if (row.value.organizationId !== null) {
              yield* EventOutbox.record({ type: "platform.created", organizationId: row.value.organizationId, platformId: row.value.id, data: toRecord(row.value) })
            }
          }
          return row
        }))
        if (Option.isSome(inserted)) {
          if (Option.isSome(onCreated)) {
            yield* onCreated.value.created(inserted.value).pipe(
              Effect.catchAllCause((cause) => Effect.logWarning("platform created: a listener failed", cause).pipe(Effect.annotateLogs({ platformId: id })))
            )
          }
          return inserted.value
        }
        const slugTaken = Option.isSome(yield* repo.findBySlug(input.slug))
        return yield* platformConflict(slugTaken ? "slug" : "organizationId")
      }
    )

    /** One platform by id, else `NotFound`. */
    const get: (id: string) => Effect.Effect<PlatformRow, NotFound> = Effect.fn("Platforms.get")(function*(id: string) {
      const found = yield* repo.findById(id)
      return Option.isSome(found) ? found.value : yield* platformNotFound
    })

    /** One platform as a caller may see it: another tenant's answers `NotFound` (`Policy.canRead`). */
    const read: (caller: Caller, id: string) => Effect.Effect<PlatformRow, NotFound | Forbidden, Callers> = Effect.fn(
      "Platforms.read"
    )(function*(caller: Caller, id: string) {
      const platform = yield* get(id)
      yield* canRead(caller, platform)
      return platform
    })

    /** A page of the platforms the caller may see (its own tenant's; every one for operators). */
    const list: (
      caller: Caller,
      query: Registry.ListPlatformsQuery
    ) => Effect.Effect<RowPage<PlatformRow>, Forbidden | ValidationError, Callers> = Effect.fn("Platforms.list")(
      function*(caller: Caller, query: Registry.ListPlatformsQuery) {
        const after = yield* afterOf(query.cursor)
        const scope = yield* listScope(caller)
        if (scope === null) return { data: [], pagination: { hasMore: false, nextCursor: null, total: 0 } }
        const filter = { organizationId: scope, status: query.status, tier: query.tier, slug: query.slug }
        const [rows, total] = yield* Effect.all([repo.list({ ...filter, after, limit: query.limit + 1 }), repo.count(filter)])
        const { data, hasMore, nextCursor } = Cursor.page(rows, query.limit, keyOf)
        return { data, pagination: { hasMore, nextCursor, total } }
      }
    )

    /** Lock a platform (`FOR UPDATE`) and check that it is the caller's (404 otherwise); the action checks its permission. */
    const lockFor = (caller: Caller, id: string) =>
      Effect.flatMap(repo.lockById(id), (found) =>
        Option.isNone(found) ? Effect.fail(platformNotFound) : Effect.as(canSee(caller, found.value), found.value))

    /** Apply an allowed action to a locked platform and record its event, in the caller's transaction. */
    const transition = (caller: Caller, platform: PlatformRow, action: Lifecycle.LifecycleAction, reason: string | null, extra?: Partial<PlatformRow>) =>
      Effect.gen(function*() {
        const invalid = Lifecycle.check(action, platform.status)
        if (invalid !== undefined) return yield* invalid
        const at = yield* now
        const updated = yield* repo.update(platform.id, { ...Lifecycle.apply({ ...platform, ...extra }, action, reason, at) })
        const privileged = yield* Policy.isPrivileged(caller)
        const trigger = Lifecycle.triggerOf(caller, privileged)
        if (Option.isSome(sink) && isBlocked(platform) !== isBlocked(updated)) {
          yield* sink.value.publish(platform.id, isBlocked(updated) ? "suspended" : "active", trigger.triggeredBy)
        }
        const event: LifecycleEventRow = {
          id: yield* ids.make("lce"),
          platformId: platform.id,
          fromStatus: platform.status,
          toStatus: updated.status,
          ...trigger,
          reason,
          metadata: action === "delete" ? { mode: "hard" } : action === "softDelete" ? { mode: "soft" } : {},
          createdAt: at
        }
        yield* repo.insertEvent(event)
        if (updated.organizationId !== null) {
          yield* EventOutbox.record({
            type: "platform.status_changed",
            organizationId: updated.organizationId,
            platformId: updated.id,
            data: { platform: toRecord(updated), lifecycleEvent: toEventRecord(event) }
          })
        }
        return updated
      })

    /**
     * Suspend, restore, cancel or delete a platform: under its row lock, so concurrent changes
     * serialize; the change and its LifecycleEvent in one transaction. Cancel is the owner's and
     * admins' too; the rest the operators' and the service key's. A platformStale `If-Match`: 412.
     */
    const changeLifecycle: (
      caller: Caller,
      id: string,
      action: Lifecycle.LifecycleAction,
      reason?: string,
      ifMatch?: string
    ) => Effect.Effect<PlatformRow, Failure, Callers> = Effect.fn("Platforms.changeLifecycle")(
      function*(caller: Caller, id: string, action: Lifecycle.LifecycleAction, reason?: string, ifMatch?: string) {
        return yield* inTransaction(Effect.gen(function*() {
          const platform = yield* lockFor(caller, id)
          yield* action === "cancel" ? canManage(caller, platform) : canOperate(caller, platform)
          yield* requireMatch(ifMatch, platform)
          return yield* transition(caller, platform, action, reason ?? null)
        }))
      }
    )

    /**
     * `PATCH`: `name` for the owner and admins; `tier` and `status` for operators and the service
     * key. A status change follows the lifecycle (and writes its event); a deleted platform is final.
     */
    const update: (
      caller: Caller,
      id: string,
      body: Registry.UpdatePlatformRequest,
      ifMatch?: string
    ) => Effect.Effect<PlatformRow, Failure, Callers> = Effect.fn("Platforms.update")(
      function*(caller: Caller, id: string, body: Registry.UpdatePlatformRequest, ifMatch?: string) {
        return yield* inTransaction(Effect.gen(function*() {
          const platform = yield* lockFor(caller, id)
          const tierChanges = body.tier !== undefined && body.tier !== platform.tier
          const statusChanges = body.status !== undefined && body.status !== platform.status
          yield* tierChanges || statusChanges ? canOperate(caller, platform) : canManage(caller, platform)
          yield* requireMatch(ifMatch, platform)
          const renamed = { name: body.name ?? platform.name, tier: body.tier ?? platform.tier }
          if (statusChanges) return yield* transition(caller, platform, Lifecycle.actionForStatus(body.status!), null, renamed)
          if (platform.status === "deleted") {
            return yield* Lifecycle.check("softDelete", platform.status)!
          }
          if (renamed.name === platform.name && renamed.tier === platform.tier) return platform
          return yield* repo.update(platform.id, { ...platform, ...renamed, updatedAt: yield* now })
        }))
      }
    )

    /** A page of a platform's lifecycle events, oldest first. */
    const events: (
      caller: Caller,
      id: string,
      query: { readonly cursor?: string | undefined; readonly limit: number }
    ) => Effect.Effect<RowPage<LifecycleEventRow>, NotFound | Forbidden | ValidationError, Callers> = Effect.fn("Platforms.events")(
      function*(caller: Caller, id: string, query: { readonly cursor?: string | undefined; readonly limit: number }) {
        yield* read(caller, id)
        const after = yield* afterOf(query.cursor)
        const [rows, total] = yield* Effect.all([repo.listEvents(id, after, query.limit + 1), repo.countEvents(id)])
        const { data, hasMore, nextCursor } = Cursor.page(rows, query.limit, keyOf)
        return { data, pagination: { hasMore, nextCursor, total } }
      }
    )

    /**
     * The registry's reads for the other domains (no caller: the reading domain applies its own
     * rule): one platform by id, an organization's platform, every platform not deleted.
     */
    const find = (id: string): Effect.Effect<Option.Option<PlatformRow>> => repo.findById(id)
    const ofOrganization = (organizationId: string): Effect.Effect<Option.Option<PlatformRow>> => repo.findByOrganization(organizationId)
    const listLive = (): Effect.Effect<ReadonlyArray<PlatformRow>> => repo.listLive()

    return { create, get, read, list, update, changeLifecycle, events, find, ofOrganization, listLive } as const
  }),
  dependencies: [PlatformsRepo.Default]
}) {}
