import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { MemberRole } from "./MembersRepo.js"

/** Stored states of an invitation; a pending one past its expiry reads as `expired`. */
export type InvitationState = "pending" | "accepted" | "rejected" | "canceled" | "expired"

/** A row of `iam.invitations`. */
export interface InvitationRow {
  readonly id: string
  readonly organizationId: string
  readonly email: string
  readonly role: MemberRole
  readonly status: InvitationState
  readonly inviterId: string
  readonly expiresAt: Date
  readonly createdAt: Date
}

/** Where a page of invitations starts: after this creation time and id. */
export interface InvitationPosition {
  readonly createdAt: Date
  readonly id: string
}

const toRow = (raw: Record<string, unknown>): InvitationRow => ({
  id: raw.id as string,
  organizationId: raw.organizationId as string,
  email: raw.email as string,
  role: raw.role as MemberRole,
  status: raw.status as InvitationState,
  inviterId: raw.inviterId as string,
  expiresAt: Rows.toDate(raw.expiresAt),
  createdAt: Rows.toDate(raw.createdAt)
})

/** The SQL of `iam.invitations`. Database failures are defects. */
export class InvitationsRepo extends Effect.Service<InvitationsRepo>()("@core/auth/InvitationsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(`id, organization_id AS "organizationId", email, role, status,
      inviter_id AS "inviterId", expires_at AS "expiresAt", created_at AS "createdAt"`)
    const first = (rows: ReadonlyArray<Record<string, unknown>>) => Option.map(Option.fromNullable(rows[0]), toRow)
    const many = (rows: ReadonlyArray<Record<string, unknown>>) => rows.map(toRow)

    /**
     * Store a pending invitation; `None` when the organization already has one pending for the email
     * (the `invitations_one_pending` index decides, so parallel invitations leave one row).
     */
    const insert = (row: Omit<InvitationRow, "status">) =>
      sql<Record<string, unknown>>`INSERT INTO iam.invitations
          (id, organization_id, email, role, status, inviter_id, expires_at, created_at)
        VALUES (${row.id}, ${row.organizationId}, ${row.email}, ${row.role}, 'pending', ${row.inviterId},
          ${row.expiresAt}, ${row.createdAt})
        ON CONFLICT (organization_id, lower(email)) WHERE status = 'pending' DO NOTHING
        RETURNING ${columns}`.pipe(
        Effect.map(first),
        Effect.orDie,
        Effect.withSpan("InvitationsRepo.insert")
      )

    /** Store the pending invitations of an email that are past their expiry as `expired` (freeing the index). */
    const expireStale = (organizationId: string, email: string, now: Date) =>
      sql`UPDATE iam.invitations SET status = 'expired'
        WHERE organization_id = ${organizationId} AND lower(email) = lower(${email})
          AND status = 'pending' AND expires_at <= ${now}`.pipe(
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("InvitationsRepo.expireStale")
      )

    const findById = (id: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM iam.invitations WHERE id = ${id}`.pipe(
        Effect.map(first),
        Effect.orDie,
        Effect.withSpan("InvitationsRepo.findById")
      )

    /** The pending, unexpired invitation of an email to an organization, if any. */
    const findPending = (organizationId: string, email: string, now: Date) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM iam.invitations
        WHERE organization_id = ${organizationId} AND lower(email) = lower(${email})
          AND status = 'pending' AND expires_at > ${now}
        ORDER BY created_at DESC LIMIT 1`.pipe(
        Effect.map(first),
        Effect.orDie,
        Effect.withSpan("InvitationsRepo.findPending")
      )

    /** Every invitation of an organization, oldest first. */
    const listByOrganization = (organizationId: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM iam.invitations
        WHERE organization_id = ${organizationId} ORDER BY created_at, id`.pipe(
        Effect.map(many),
        Effect.orDie,
        Effect.withSpan("InvitationsRepo.listByOrganization")
      )

    /** Up to `limit` invitations after `after`, oldest first (by the `invitations_org_idx` index). */
    const page = (organizationId: string, after: InvitationPosition | null, limit: number) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM iam.invitations
        WHERE organization_id = ${organizationId}
          ${after === null ? sql`` : sql`AND (created_at, id) > (${after.createdAt}, ${after.id})`}
        ORDER BY created_at, id LIMIT ${limit}`.pipe(
        Effect.map(many),
        Effect.orDie,
        Effect.withSpan("InvitationsRepo.page")
      )

    /** Move a pending invitation to another status; `None` when it was no longer pending. */
    const transition = (id: string, to: Exclude<InvitationState, "pending" | "expired">) =>
      sql<Record<string, unknown>>`UPDATE iam.invitations SET status = ${to}
        WHERE id = ${id} AND status = 'pending' RETURNING ${columns}`.pipe(
        Effect.map(first),
        Effect.orDie,
        Effect.withSpan("InvitationsRepo.transition")
      )

    /** Give a pending invitation a new expiry (a resent invitation). */
    const extend = (id: string, expiresAt: Date) =>
      sql<Record<string, unknown>>`UPDATE iam.invitations SET expires_at = ${expiresAt}
        WHERE id = ${id} AND status = 'pending' RETURNING ${columns}`.pipe(
        Effect.map(first),
        Effect.orDie,
        Effect.withSpan("InvitationsRepo.extend")
      )

    return { insert, expireStale, findById, findPending, listByOrganization, page, transition, extend } as const
  })
}) {}
