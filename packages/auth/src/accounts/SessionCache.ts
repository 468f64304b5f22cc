import { Clock, Duration, Effect } from "effect"
import type { DescribedSession } from "./SessionContext.js"

/** How long a session's context may be answered from memory (decision 0106). */
export const SESSION_CONTEXT_TTL = Duration.seconds(1)

const MAX_ENTRIES = 10_000

interface Entry {
  readonly value: DescribedSession
  readonly validUntil: number
}

/**
 * Recently described sessions (context, role and permissions), by token hash, for at most a second,
 * in process: the gateway's `GET /api/core/session` per request then costs one database lookup per
 * token per second. Every revocation and account change made here clears it; other changes
 * (`set-active`, roles, grants, memberships, platform status, another process) show within the second.
 */
export const make = () => {
  const entries = new Map<string, Entry>()

  /** A live cached context, if any. */
  const get = (tokenHash: string): Effect.Effect<DescribedSession | undefined> =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      const entry = entries.get(tokenHash)
      if (entry === undefined) return undefined
      if (entry.validUntil > now && entry.value.session.expiresAt.getTime() > now) return entry.value
      entries.delete(tokenHash)
      return undefined
    })

  const set = (tokenHash: string, value: DescribedSession): Effect.Effect<void> =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      if (entries.size >= MAX_ENTRIES) entries.clear()
      entries.set(tokenHash, { value, validUntil: now + Duration.toMillis(SESSION_CONTEXT_TTL) })
    })

  /** Forget everything (a session ended, a user changed or left). */
  const clear: Effect.Effect<void> = Effect.sync(() => entries.clear())

  return { get, set, clear } as const
}

/** The session context cache of this process. */
export class SessionCache extends Effect.Service<SessionCache>()("@core/auth/SessionCache", {
  sync: () => make()
}) {}
