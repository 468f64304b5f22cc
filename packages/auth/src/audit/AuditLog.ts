import type { RequestContext } from "@core/kernel"
import { Context, type Effect } from "effect"

/** One audit entry to append. Request facts (ip, user agent, request id) are filled in by `Audit`. */
export interface AuditEvent {
  /** Dotted verb, e.g. `session.sign_in`, `org.create`, `grant.revoke`, `apikey.create`. */
  readonly action: string
  readonly outcome?: "success" | "failure"
  readonly actorId?: string | null
  readonly actorType: "user" | "apikey" | "service" | "anonymous" | "system"
  readonly organizationId?: string | null
  readonly targetType?: string | null
  readonly targetId?: string | null
  /** Never secrets: no tokens, keys, passwords or codes. */
  readonly metadata?: Record<string, unknown> | null
}

/**
 * Request facts recorded with each audit entry: the kernel's `RequestFacts`, under the name the
 * identity services already use for the facts they are handed.
 */
export type AuditRequestFacts = RequestContext.RequestFacts

/** The append side of the audit log (the read side lives in `Audit.ts`). */
export class AuditLog extends Context.Tag("@core/auth/AuditLog")<AuditLog, {
  readonly record: (event: AuditEvent, facts?: AuditRequestFacts) => Effect.Effect<void>
}>() {}
