import { Duration, Effect } from "effect"
import { memoDecoder, SharedState } from "../internal/SharedState.js"
import type { DescribedSession } from "./SessionContext.js"

/** How long a session's context may be answered from the cache (decision 0106). */
export const SESSION_CONTEXT_TTL = Duration.seconds(1)

/** The cache group of session contexts (`SharedState`). */
const GROUP = "session"

/** A cached context, if any, and the cache's version when it was read (hand it back to `set`). */
export interface CachedSession {
  readonly value: DescribedSession | undefined
  readonly version: string
}

type Stored = Omit<DescribedSession, "session" | "user"> & {
  readonly session: Omit<DescribedSession["session"], "expiresAt" | "createdAt" | "updatedAt"> & Record<"expiresAt" | "createdAt" | "updatedAt", string>
  readonly user: Omit<DescribedSession["user"], "createdAt" | "updatedAt"> & Record<"createdAt" | "updatedAt", string>
}

const decode = (text: string): DescribedSession | undefined => {
  try {
    const stored = JSON.parse(text) as Stored
    return {
      ...stored,
      session: {
        ...stored.session,
        expiresAt: new Date(stored.session.expiresAt),
        createdAt: new Date(stored.session.createdAt),
        updatedAt: new Date(stored.session.updatedAt)
      },
      user: { ...stored.user, createdAt: new Date(stored.user.createdAt), updatedAt: new Date(stored.user.updatedAt) }
    }
  } catch {
    return undefined
  }
}

/**
 * Recently described sessions (context, role and permissions), by token hash, for at most a second:
 * the gateway's `GET /api/core/session` per request then costs one database lookup per token per
 * second. Kept in `SharedState` — Redis when configured, so every identity process reads the same
 * entries and a revocation or change made in one is seen by all at once (decision 0192); else in
 * process. Every revocation and account, membership, permission or platform change clears it, and
 * a context read before such a change is never stored after it (the version).
 */
export const make = Effect.gen(function*() {
  const { caches } = yield* SharedState
  const decoded = memoDecoder(decode)

  /** A live cached context, if any, and the version to store a fresh one with. */
  const get = (tokenHash: string): Effect.Effect<CachedSession> =>
    Effect.map(Effect.zip(caches.get(GROUP, tokenHash), Effect.clockWith((clock) => clock.currentTimeMillis)), ([cached, now]) => {
      const value = cached.value === undefined ? undefined : decoded(tokenHash, cached.value)
      return { value: value !== undefined && value.session.expiresAt.getTime() > now ? value : undefined, version: cached.version }
    })

  /** Keep a context for a second, unless the cache was cleared since `version` was read. */
  const set = (tokenHash: string, value: DescribedSession, version: string): Effect.Effect<void> =>
    caches.set(GROUP, tokenHash, JSON.stringify(value), Duration.toMillis(SESSION_CONTEXT_TTL), version)

  /** Forget everything, in every process (a session ended, a user changed or left). */
  const clear: Effect.Effect<void> = caches.drop(GROUP)

  return { get, set, clear } as const
})

/** The session context cache. */
export class SessionCache extends Effect.Service<SessionCache>()("@core/auth/SessionCache", {
  effect: make,
  dependencies: [SharedState.Default]
}) {}
