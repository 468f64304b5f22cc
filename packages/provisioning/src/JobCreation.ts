import { Provisioning } from "@core/contracts"
import { type Caller, type Callers, type Conflict, type Forbidden, Crypto, Ids, type NotFound, Policy, type ValidationError } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Data, Effect, Option } from "effect"
import { makeIdempotencyKeysRepo } from "./IdempotencyKeysRepo.js"
import { enqueue } from "./JobsRepo.js"
import { type PlatformOwnership, PlatformDirectory } from "./ports/PlatformDirectory.js"
import { idempotencyMismatch, invalidIdempotencyKey, platformNotFound } from "./Errors.js"

/** How long an `Idempotency-Key` answers its first job (decision 0287). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

/** Whose job it is: a platform (by id; a deleted one only when `allowDeleted`). */
export type Owner = { readonly platformId: string; readonly allowDeleted?: boolean }

/** One job-creating call, as a route hands it over. */
export interface JobRequest<A extends Record<string, unknown>, E = never, R = never> {
  readonly type: string
  readonly owner: Owner
  /** The job's payload: the seed's parsed body (the owner's `platformId` is added). */
  readonly payload: Record<string, unknown>
  /** `Targets.*`: what the job works on. */
  readonly target: string | null
  readonly maxAttempts?: number
  /** The request's `Idempotency-Key` header, as received. */
  readonly idempotencyKey: string | undefined
  /** Operators only (the route checked the role); else the platform's owner and admins. */
  readonly operatorOnly?: boolean
  /** Work in the job's transaction before it is enqueued: more payload (the registry activation's id, say). */
  readonly before?: Effect.Effect<Record<string, unknown>, E, R>
  /** Work in the job's transaction after it is enqueued, with its id. */
  readonly after?: (jobId: string) => Effect.Effect<void, E, R>
  /** The body the route answers, stored with the key and answered again for it. */
  readonly answer: (jobId: string) => A
}

/** A key another request of the same caller stored while this one ran. */
class KeyTaken extends Data.TaggedError("KeyTaken")<{}> {}

/** A JSON text with object keys in order: the same body hashes the same however it was written. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

/** The caller an idempotency key belongs to. */
const scopeOf = (caller: Caller): string => {
  const actor = Policy.actorOf(caller)
  return `${actor.actorType}:${actor.actorId ?? "-"}`
}

/**
 * The `Idempotency-Key` header of a job-creating request, validated (decision 0287): absent, or 1
 * to 255 visible ASCII characters; anything else is 400 naming the header.
 */
export const idempotencyKeyOf = (headers: Readonly<Record<string, string | undefined>>): Effect.Effect<string | undefined, ValidationError> => {
  const raw = headers["idempotency-key"]
  if (raw === undefined) return Effect.succeed(undefined)
  const parsed = Provisioning.IdempotencyKey.safeParse(raw)
  return parsed.success
    ? Effect.succeed(parsed.data)
    : Effect.fail(invalidIdempotencyKey(parsed.error.issues[0]?.message ?? "Invalid Idempotency-Key"))
}

/**
 * Seed 001's job-creating routes as one use case: who may ask (a platform's owner and admins for
 * their own platform, another tenant 404, a member 403; operators and the service key for every
 * platform), the `Idempotency-Key` (the same key of the same caller answers the first job; with
 * another route or body, 409 CONFLICT), and the job enqueued with its target in one transaction
 * with the key and whatever the route's `before`/`after` write.
 */
export class JobCreation extends Effect.Service<JobCreation>()("@core/provisioning/JobCreation", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const keys = makeIdempotencyKeysRepo(sql)
    const ids = yield* Ids.Ids
    const directory = yield* PlatformDirectory

    const ownerOf = (owner: Owner): Effect.Effect<PlatformOwnership, NotFound> =>
      Effect.flatMap(directory.platform(owner.platformId), (found) =>
        Option.isSome(found) && (!found.value.deleted || owner.allowDeleted === true) ? Effect.succeed(found.value) : Effect.fail(platformNotFound))

    /** The stored answer of a live key, if any: `Some(answer)` for the same request, 409 for another. */
    const replay = (scope: string, key: string, hash: string, now: Date) =>
      Effect.gen(function*() {
        const found = yield* keys.live(scope, key, new Date(now.getTime() - IDEMPOTENCY_TTL_MS))
        if (Option.isNone(found)) return Option.none<Record<string, unknown>>()
        const row = found.value
        if (row.requestHash !== hash) {
          return yield* idempotencyMismatch(key)
        }
        const response = typeof row.response === "string" ? JSON.parse(row.response) : row.response
        return Option.some(response as Record<string, unknown>)
      })

    const create = <A extends Record<string, unknown>, E, R>(caller: Caller, request: JobRequest<A, E, R>): Effect.Effect<A, E | NotFound | Forbidden | Conflict, R | Callers> =>
      Effect.gen(function*() {
        const owner = yield* ownerOf(request.owner)
        if (request.operatorOnly !== true) {
          if (owner.organizationId === null) {
            if (!(yield* Policy.isPrivileged(caller))) return yield* platformNotFound
          } else {
            yield* Policy.requirePermission(caller, owner.organizationId, "platforms:manage", platformNotFound)
          }
        }
        const now = new Date(yield* Clock.currentTimeMillis)
        const key = request.idempotencyKey
        const scope = scopeOf(caller)
        const hash = Crypto.sha256Hex(canonical({ type: request.type, payload: request.payload }))
        if (key !== undefined) {
          const earlier = yield* replay(scope, key, hash, now)
          if (Option.isSome(earlier)) return earlier.value as A
        }
        const attempt = sql.withTransaction(Effect.gen(function*() {
          const extra = request.before === undefined ? {} : yield* request.before
          const job = yield* enqueue(sql, {
            type: request.type,
            platformId: owner.platformId,
            organizationId: owner.organizationId,
            payload: { ...request.payload, platformId: owner.platformId, ...extra },
            target: request.target,
            ...(request.maxAttempts === undefined ? {} : { maxAttempts: request.maxAttempts })
          }).pipe(Effect.provideService(Ids.Ids, ids))
          if (request.after !== undefined) yield* request.after(job.jobId)
          const answer = request.answer(job.jobId)
          if (key !== undefined) {
            const cutoff = new Date(now.getTime() - IDEMPOTENCY_TTL_MS)
            const stored = yield* keys.store({ scope, key, requestHash: hash, jobId: job.jobId, response: answer }, now, cutoff)
            // Another request of this caller stored the key first: undo this job, answer that one.
            if (!stored) return yield* new KeyTaken()
          }
          return answer
        })).pipe(Effect.catchTag("SqlError", Effect.die))
        return yield* attempt.pipe(
          Effect.catchTag("KeyTaken", () =>
            Effect.flatMap(replay(scope, key!, hash, now), Option.match({
              onNone: () => Effect.die(new Error("An idempotency key vanished while it was answered")),
              onSome: (answer) => Effect.succeed(answer as A)
            })))
        )
      }).pipe(Effect.withSpan("JobCreation.create", { attributes: { type: request.type } }))

    return { create } as const
  })
}) {}
