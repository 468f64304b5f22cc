import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { UserRecord } from "./UsersRepo.js"

/** A session row, without its token hash. */
export interface SessionRecord {
  readonly id: string
  readonly userId: string
  readonly activeOrganizationId: string | null
  readonly kind: "web" | "device"
  readonly sliding: boolean
  readonly ipAddress: string | null
  readonly userAgent: string | null
  readonly expiresAt: Date
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** A session and its user, read together by token hash. */
export interface SessionWithUser {
  readonly session: SessionRecord
  readonly user: UserRecord
}

/** The active organization of a session as the caller is placed in it (null fields without one). */
export interface SessionTenant {
  readonly organizationId: string | null
  readonly organizationSlug: string | null
  readonly platformId: string | null
  readonly platformStatus: "active" | "suspended" | null
  readonly memberRole: "owner" | "admin" | "member" | null
}

/** A session, its user and its tenant, read in one lookup. */
export interface SessionContextRow extends SessionWithUser {
  readonly tenant: SessionTenant
}

interface SessionRow {
  readonly id: string
  readonly user_id: string
  readonly active_organization_id: string | null
  readonly kind: "web" | "device"
  readonly sliding: boolean
  readonly ip_address: string | null
  readonly user_agent: string | null
  readonly expires_at: unknown
  readonly created_at: unknown
  readonly updated_at: unknown
}

interface JoinedRow extends SessionRow {
  readonly u_name: string
  readonly u_email: string
  readonly u_email_verified: boolean
  readonly u_image: string | null
  readonly u_created_at: unknown
  readonly u_updated_at: unknown
}

interface ContextRow extends JoinedRow {
  readonly org_slug: string | null
  readonly platform_id: string | null
  readonly platform_status: "active" | "suspended" | null
  readonly member_role: "owner" | "admin" | "member" | null
}

const toSession = (row: SessionRow): SessionRecord => ({
  id: row.id,
  userId: row.user_id,
  activeOrganizationId: row.active_organization_id,
  kind: row.kind,
  sliding: row.sliding,
  ipAddress: row.ip_address,
  userAgent: row.user_agent,
  expiresAt: Rows.toDate(row.expires_at),
  createdAt: Rows.toDate(row.created_at),
  updatedAt: Rows.toDate(row.updated_at)
})

const toJoined = (row: JoinedRow): SessionWithUser => ({
  session: toSession(row),
  user: {
    id: row.user_id,
    name: row.u_name,
    email: row.u_email,
    emailVerified: row.u_email_verified,
    image: row.u_image,
    createdAt: Rows.toDate(row.u_created_at),
    updatedAt: Rows.toDate(row.u_updated_at)
  }
})

const toContext = (row: ContextRow): SessionContextRow => ({
  ...toJoined(row),
  tenant: {
    organizationId: row.org_slug === null ? null : row.active_organization_id,
    organizationSlug: row.org_slug,
    platformId: row.platform_id,
    platformStatus: row.platform_id === null ? null : (row.platform_status ?? "active"),
    memberRole: row.member_role
  }
})

/** The SQL of `iam.sessions`. Lookups are by `token_hash` (unique index) and skip revoked and expired rows. */
export class SessionsRepo extends Effect.Service<SessionsRepo>()("@core/auth/SessionsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Insert a session; its active organization is the user's first membership, if any. */
    const insert = (input: {
      readonly id: string
      readonly tokenHash: string
      readonly userId: string
      readonly kind: "web" | "device"
      readonly sliding: boolean
      readonly refreshFamilyId: string | null
      readonly ipAddress: string | null
      readonly userAgent: string | null
      readonly expiresAt: Date
      readonly now: Date
    }) =>
      sql<SessionRow>`INSERT INTO iam.sessions (id, token_hash, user_id, active_organization_id, kind, refresh_family_id,
          sliding, ip_address, user_agent, expires_at, created_at, updated_at)
        VALUES (${input.id}, ${input.tokenHash}, ${input.userId},
          (SELECT organization_id FROM iam.members WHERE user_id = ${input.userId} ORDER BY created_at, id LIMIT 1),
          ${input.kind}, ${input.refreshFamilyId}, ${input.sliding}, ${input.ipAddress}, ${input.userAgent},
          ${input.expiresAt}, ${input.now}, ${input.now})
        RETURNING id, user_id, active_organization_id, kind, sliding, ip_address, user_agent, expires_at, created_at, updated_at`
        .pipe(Effect.map((rows) => toSession(rows[0])), Effect.orDie, Effect.withSpan("SessionsRepo.insert"))

    /** The live session holding this token hash, with its user. */
    const findByTokenHash = (tokenHash: string, now: Date) =>
      sql<JoinedRow>`SELECT s.id, s.user_id, s.active_organization_id, s.kind, s.sliding, s.ip_address, s.user_agent,
          s.expires_at, s.created_at, s.updated_at,
          u.name AS u_name, u.email AS u_email, u.email_verified AS u_email_verified, u.image AS u_image,
          u.created_at AS u_created_at, u.updated_at AS u_updated_at
        FROM iam.sessions s JOIN iam.users u ON u.id = s.user_id
        WHERE s.token_hash = ${tokenHash} AND s.revoked_at IS NULL AND s.expires_at > ${now}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toJoined)),
        Effect.orDie,
        Effect.withSpan("SessionsRepo.findByTokenHash")
      )

    /**
     * The live session holding this token hash, with its user, its active organization, the caller's
     * role there and the organization's platform status: one statement, every join on a key.
     */
    const findContextByTokenHash = (tokenHash: string, now: Date) =>
      sql<ContextRow>`SELECT s.id, s.user_id, s.active_organization_id, s.kind, s.sliding, s.ip_address, s.user_agent,
          s.expires_at, s.created_at, s.updated_at,
          u.name AS u_name, u.email AS u_email, u.email_verified AS u_email_verified, u.image AS u_image,
          u.created_at AS u_created_at, u.updated_at AS u_updated_at,
          o.slug AS org_slug, o.platform_id, ps.status AS platform_status, m.role AS member_role
        FROM iam.sessions s
          JOIN iam.users u ON u.id = s.user_id
          LEFT JOIN iam.organizations o ON o.id = s.active_organization_id
          LEFT JOIN iam.members m ON m.organization_id = s.active_organization_id AND m.user_id = s.user_id
          LEFT JOIN iam.platform_status ps ON ps.platform_id = o.platform_id
        WHERE s.token_hash = ${tokenHash} AND s.revoked_at IS NULL AND s.expires_at > ${now}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toContext)),
        Effect.orDie,
        Effect.withSpan("SessionsRepo.findContextByTokenHash")
      )

    /** One live session by id. */
    const findLive = (id: string, now: Date) =>
      sql<SessionRow>`SELECT id, user_id, active_organization_id, kind, sliding, ip_address, user_agent,
          expires_at, created_at, updated_at
        FROM iam.sessions
        WHERE id = ${id} AND revoked_at IS NULL AND expires_at > ${now}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toSession)),
        Effect.orDie,
        Effect.withSpan("SessionsRepo.findLive")
      )

    /** Push a sliding session's expiry forward. */
    const extend = (id: string, expiresAt: Date, now: Date) =>
      sql`UPDATE iam.sessions SET expires_at = ${expiresAt}, updated_at = ${now}
        WHERE id = ${id} AND revoked_at IS NULL`.pipe(Effect.asVoid, Effect.orDie, Effect.withSpan("SessionsRepo.extend"))

    /** The user's live sessions, newest first. */
    const listActive = (userId: string, now: Date) =>
      sql<SessionRow>`SELECT id, user_id, active_organization_id, kind, sliding, ip_address, user_agent,
          expires_at, created_at, updated_at
        FROM iam.sessions
        WHERE user_id = ${userId} AND revoked_at IS NULL AND expires_at > ${now}
        ORDER BY created_at DESC, id DESC`.pipe(
        Effect.map((rows) => rows.map(toSession)),
        Effect.orDie,
        Effect.withSpan("SessionsRepo.listActive")
      )

    const revokeOne = (which: "id" | "token_hash", value: string, userId: string, now: Date) =>
      sql<{ readonly id: string }>`UPDATE iam.sessions SET revoked_at = ${now}, updated_at = ${now}
        WHERE ${sql(which)} = ${value} AND user_id = ${userId} AND revoked_at IS NULL AND expires_at > ${now}
        RETURNING id`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => row.id)),
        Effect.orDie
      )

    /** Revoke one live session of the user by id; its id, or `None` when there is no such session. */
    const revokeOwned = (id: string, userId: string, now: Date) =>
      revokeOne("id", id, userId, now).pipe(Effect.withSpan("SessionsRepo.revokeOwned"))

    /** Revoke one live session of the user by token hash; its id, or `None`. */
    const revokeOwnedByTokenHash = (tokenHash: string, userId: string, now: Date) =>
      revokeOne("token_hash", tokenHash, userId, now).pipe(Effect.withSpan("SessionsRepo.revokeOwnedByTokenHash"))

    /** Revoke every live session of the user except `keepId`; the revoked ids. */
    const revokeAllOf = (userId: string, now: Date, keepId: string | null) =>
      sql<{ readonly id: string }>`UPDATE iam.sessions SET revoked_at = ${now}, updated_at = ${now}
        WHERE user_id = ${userId} AND revoked_at IS NULL AND expires_at > ${now}
          AND (${keepId}::text IS NULL OR id <> ${keepId})
        RETURNING id`.pipe(
        Effect.map((rows) => rows.map((row) => row.id)),
        Effect.orDie,
        Effect.withSpan("SessionsRepo.revokeAllOf")
      )

    return {
      insert,
      findByTokenHash,
      findContextByTokenHash,
      findLive,
      extend,
      listActive,
      revokeOwned,
      revokeOwnedByTokenHash,
      revokeAllOf
    } as const
  })
}) {}
