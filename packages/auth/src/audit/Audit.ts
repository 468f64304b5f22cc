import { Iam } from "@core/contracts"
import { Cursor, type Forbidden, Ids, Policy, RequestContext, type ValidationError, type NotFound } from "@core/kernel"
import type { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer } from "effect"
import { z } from "zod"
import { type AuditEvent, AuditLog, type AuditRequestFacts } from "./AuditLog.js"
import { AuditRepo } from "./AuditRepo.js"
import type { Caller } from "@core/kernel"
import { Access } from "../authorization/Access.js"
import { Permissions } from "../authorization/Permissions.js"
import { invalidQuery, ownAuditEntriesOnly } from "../Errors.js"

const SECRET_KEYS = /^(password|newpassword|currentpassword|token|accesstoken|refreshtoken|secret|key|apikey|authorization|cookie|code|devicecode|usercode|hash)$/i

/** Drop values of keys that name secrets, at any depth — a last guard; callers never pass them. */
export const scrub = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(scrub)
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.entries(value).filter(([key]) => !SECRET_KEYS.test(key)).map(([key, v]) => [key, scrub(v)])
  )
}

/** The actor fields of an audit event for a caller (the kernel's one mapping). */
export const actorOf: (caller: Caller) => Pick<AuditEvent, "actorId" | "actorType"> = Policy.actorOf

const AuditCursor = z.object({ occurredAt: z.iso.datetime(), id: Iam.NonEmptyText })

/**
 * Append one entry; request facts come from `facts`, else from the kernel's `RequestContext`
 * (ip, user agent, request id of the route being handled; none outside a request).
 */
const makeRecord = (repo: AuditRepo, ids: Ids.Ids["Type"]) =>
  Effect.fn("Audit.record")(function*(event: AuditEvent, facts?: AuditRequestFacts) {
    yield* Effect.annotateCurrentSpan("action", event.action)
    const known = facts ?? (yield* RequestContext.facts)
    const now = yield* Clock.currentTimeMillis
    yield* repo.insert({
      id: yield* ids.make("aud"),
      occurredAt: new Date(now),
      action: event.action,
      outcome: event.outcome ?? "success",
      actorId: event.actorId ?? null,
      actorType: event.actorType,
      organizationId: event.organizationId ?? null,
      targetType: event.targetType ?? null,
      targetId: event.targetId ?? null,
      ip: known.ip,
      userAgent: known.userAgent,
      requestId: known.requestId,
      metadata: event.metadata == null ? null : scrub(event.metadata) as Record<string, unknown>
    })
  })

/** The audit log: append (`record`, also served as the `AuditLog` port) and read (`list`). */
export class Audit extends Effect.Service<Audit>()("@core/auth/Audit", {
  effect: Effect.gen(function*() {
    const repo = yield* AuditRepo
    const ids = yield* Ids.Ids
    const access = yield* Access
    const permissions = yield* Permissions

    const record = makeRecord(repo, ids)

    /** Which actor a caller may read: everyone's (operators, service), an organization's, or their own. */
    const scope = (caller: Caller, query: Iam.ListAuditQuery) =>
      Effect.gen(function*() {
        const self = caller.kind === "user" ? caller.userId : undefined
        if (query.actor === "me" && self === undefined) {
          return yield* invalidQuery("actor", "me needs a signed-in user")
        }
        const actorId = query.actor === "me" ? self : query.actor
        if (caller.kind === "service" || (yield* access.isPrivileged(caller))) {
          return { actorId, organizationId: query.organizationId }
        }
        if (caller.kind === "apikey") {
          // An API key reads its own organization's log only, with `audit:read`.
          const organizationId = query.organizationId ?? caller.organizationId
          yield* access.requirePermission(caller, organizationId, "audit:read")
          return { actorId, organizationId }
        }
        if (query.organizationId !== undefined) {
          if (actorId === caller.userId) {
            const membership = yield* permissions.membership(caller.userId, query.organizationId)
            if (membership !== null) return { actorId, organizationId: query.organizationId }
          }
          yield* access.requirePermission(caller, query.organizationId, "audit:read")
          return { actorId, organizationId: query.organizationId }
        }
        if (actorId !== undefined && actorId !== caller.userId) {
          return yield* ownAuditEntriesOnly
        }
        return { actorId: caller.userId, organizationId: undefined }
      })

    /** A page of entries the caller may read, newest first, filtered by the query. */
    const list = Effect.fn("Audit.list")(function*(
      caller: Caller,
      query: Iam.ListAuditQuery
    ): Effect.fn.Return<Iam.AuditPage, ValidationError | Forbidden | NotFound> {
      const { actorId, organizationId } = yield* scope(caller, query)
      const before = yield* Cursor.decodeOptional(AuditCursor, query.cursor)
      const rows = yield* repo.list({
        ...(actorId === undefined ? {} : { actorId }),
        ...(query.action === undefined
          ? {}
          : { action: query.action.endsWith(".*") ? { prefix: query.action.slice(0, -1) } : { exact: query.action } }),
        ...(organizationId === undefined ? {} : { organizationId }),
        ...(query.from === undefined ? {} : { from: query.from }),
        ...(query.to === undefined ? {} : { to: query.to }),
        ...(before === undefined ? {} : { before }),
        limit: query.limit
      })
      return Cursor.page(rows, query.limit, (entry) => ({ occurredAt: entry.occurredAt, id: entry.id }))
    })

    return { record, list } as const
  }),
  dependencies: [AuditRepo.Default]
}) {}

/** The `AuditLog` port served by `Audit`. */
export const AuditLogLive: Layer.Layer<AuditLog, never, Audit> = Layer.effect(
  AuditLog,
  Effect.map(Audit, (audit) => AuditLog.of({ record: audit.record }))
)

/**
 * The `AuditLog` port over the audit table alone (append only, no reads): for the services outside
 * identity that append entries of their own on the shared database (the events service's endpoint
 * disabled after failing for days), on the caller's connection (inside its transaction).
 */
export const AuditAppendLive: Layer.Layer<AuditLog, never, SqlClient.SqlClient | Ids.Ids> = Layer.effect(
  AuditLog,
  Effect.map(Effect.all([AuditRepo, Ids.Ids]), ([repo, ids]) => AuditLog.of({ record: makeRecord(repo, ids) }))
).pipe(Layer.provide(AuditRepo.Default))
