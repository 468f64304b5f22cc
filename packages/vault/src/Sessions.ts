import { randomUUID } from "node:crypto"
import { Effect } from "effect"

/** The most sessions kept; past it the least recently used is forgotten. */
const MAX_SESSIONS = 10_000
/** A session unused this long is forgotten (its client initializes again on the 404). */
const IDLE_MS = 60 * 60 * 1000

interface Session {
  readonly owner: string
  readonly protocolVersion: string
  seenAt: number
}

/**
 * MCP sessions (`Mcp-Session-Id`), in memory: issued by `initialize`, bound to the caller who
 * initialized (another caller's id is unknown to it: 404), ended by `DELETE /mcp` (decision 0403).
 */
export class Sessions extends Effect.Service<Sessions>()("@core/vault/Sessions", {
  sync: () => {
    const sessions = new Map<string, Session>()
    const prune = (now: number) => {
      for (const [id, session] of sessions) {
        if (sessions.size <= MAX_SESSIONS && now - session.seenAt < IDLE_MS) break
        sessions.delete(id)
      }
    }
    return {
      /** A new session for `owner`. */
      open: (owner: string, protocolVersion: string) =>
        Effect.sync(() => {
          const now = Date.now()
          const id = randomUUID()
          sessions.set(id, { owner, protocolVersion, seenAt: now })
          prune(now)
          return id
        }),
      /** The session `id` of `owner`, touched; `undefined` when unknown, ended, expired or another's. */
      find: (id: string, owner: string) =>
        Effect.sync(() => {
          const session = sessions.get(id)
          if (session === undefined || session.owner !== owner) return undefined
          if (Date.now() - session.seenAt >= IDLE_MS) {
            sessions.delete(id)
            return undefined
          }
          // Re-inserted: the map's order is the order of last use, oldest first.
          sessions.delete(id)
          session.seenAt = Date.now()
          sessions.set(id, session)
          return { protocolVersion: session.protocolVersion }
        }),
      /** End the session `id` of `owner`; whether there was one. */
      close: (id: string, owner: string) =>
        Effect.sync(() => {
          const session = sessions.get(id)
          if (session === undefined || session.owner !== owner) return false
          sessions.delete(id)
          return true
        })
    } as const
  }
}) {}
