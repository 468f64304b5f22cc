import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** Roles a member holds in an organization. */
export type MemberRole = "owner" | "admin" | "member"

/** A membership with the public face of its user. */
export interface MemberRow {
  readonly id: string
  readonly organizationId: string
  readonly userId: string
  readonly role: MemberRole
  readonly createdAt: Date
  readonly user: {
    readonly id: string
    readonly name: string
    readonly email: string
    readonly image: string | null
    readonly emailVerified: boolean
  }
}

/** The public face of a user, for lookups by id or email. */
export type UserSummary = MemberRow["user"]

const toUser = (raw: Record<string, unknown>): UserSummary => ({
  id: raw.userId as string,
  name: raw.userName as string,
  email: raw.userEmail as string,
  image: (raw.userImage as string | null) ?? null,
  emailVerified: Boolean(raw.userEmailVerified)
})

const toRow = (raw: Record<string, unknown>): MemberRow => ({
  id: raw.id as string,
  organizationId: raw.organizationId as string,
  userId: raw.userId as string,
  role: raw.role as MemberRole,
  createdAt: Rows.toDate(raw.createdAt),
  user: toUser(raw)
})

/** The SQL of `iam.members` (and the user lookups memberships need). Database failures are defects. */
export class MembersRepo extends Effect.Service<MembersRepo>()("@core/auth/MembersRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const userColumns = sql.literal(`u.id AS "userId", u.name AS "userName", u.email AS "userEmail",
      u.image AS "userImage", u.email_verified AS "userEmailVerified"`)
    const select = sql.literal(`SELECT m.id, m.organization_id AS "organizationId", m.role, m.created_at AS "createdAt",
      u.id AS "userId", u.name AS "userName", u.email AS "userEmail", u.image AS "userImage",
      u.email_verified AS "userEmailVerified"
      FROM iam.members m JOIN iam.users u ON u.id = m.user_id`)
    const first = (rows: ReadonlyArray<Record<string, unknown>>) => Option.map(Option.fromNullable(rows[0]), toRow)

    /** Insert a membership; `None` when the user is already a member. */
    const insert = Effect.fn("MembersRepo.insert")(function*(row: {
      readonly id: string
      readonly organizationId: string
      readonly userId: string
      readonly role: MemberRole
      readonly now: Date
    }) {
      const inserted = yield* sql`INSERT INTO iam.members (id, organization_id, user_id, role, created_at)
        VALUES (${row.id}, ${row.organizationId}, ${row.userId}, ${row.role}, ${row.now})
        ON CONFLICT DO NOTHING RETURNING id`
      return inserted.length === 0 ? Option.none<MemberRow>() : yield* findById(row.id)
    }, Effect.orDie)

    const findById = (id: string) =>
      sql<Record<string, unknown>>`${select} WHERE m.id = ${id}`.pipe(
        Effect.map(first),
        Effect.orDie,
        Effect.withSpan("MembersRepo.findById")
      )

    const find = (organizationId: string, userId: string) =>
      sql<Record<string, unknown>>`${select} WHERE m.organization_id = ${organizationId} AND m.user_id = ${userId}`.pipe(
        Effect.map(first),
        Effect.orDie,
        Effect.withSpan("MembersRepo.find")
      )

    const findByEmail = (organizationId: string, email: string) =>
      sql<Record<string, unknown>>`${select}
        WHERE m.organization_id = ${organizationId} AND lower(u.email) = lower(${email})`.pipe(
        Effect.map(first),
        Effect.orDie,
        Effect.withSpan("MembersRepo.findByEmail")
      )

    /** A page of members, oldest first, with the total count. */
    const list = (organizationId: string, page: { readonly limit: number; readonly offset: number }) =>
      Effect.all({
        members: sql<Record<string, unknown>>`${select} WHERE m.organization_id = ${organizationId}
          ORDER BY m.created_at, m.id LIMIT ${page.limit} OFFSET ${page.offset}`.pipe(
          Effect.map((rows) => rows.map(toRow))
        ),
        total: sql<{ readonly total: unknown }>`SELECT count(*) AS total FROM iam.members
          WHERE organization_id = ${organizationId}`.pipe(Effect.map((rows) => Number(rows[0]?.total ?? 0)))
      }).pipe(Effect.orDie, Effect.withSpan("MembersRepo.list"))

    const countOwners = (organizationId: string) =>
      sql<{ readonly owners: unknown }>`SELECT count(*) AS owners FROM iam.members
        WHERE organization_id = ${organizationId} AND role = 'owner'`.pipe(
        Effect.map((rows) => Number(rows[0]?.owners ?? 0)),
        Effect.orDie,
        Effect.withSpan("MembersRepo.countOwners")
      )

    const updateRole = Effect.fn("MembersRepo.updateRole")(function*(id: string, role: MemberRole) {
      const updated = yield* sql`UPDATE iam.members SET role = ${role} WHERE id = ${id} RETURNING id`
      return updated.length === 0 ? Option.none<MemberRow>() : yield* findById(id)
    }, Effect.orDie)

    const remove = (id: string) =>
      sql`DELETE FROM iam.members WHERE id = ${id}`.pipe(
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("MembersRepo.remove")
      )

    const userById = (id: string) =>
      sql<Record<string, unknown>>`SELECT ${userColumns} FROM iam.users u WHERE u.id = ${id}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toUser)),
        Effect.orDie,
        Effect.withSpan("MembersRepo.userById")
      )

    const userByEmail = (email: string) =>
      sql<Record<string, unknown>>`SELECT ${userColumns} FROM iam.users u WHERE lower(u.email) = lower(${email})`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toUser)),
        Effect.orDie,
        Effect.withSpan("MembersRepo.userByEmail")
      )

    return { insert, findById, find, findByEmail, list, countOwners, updateRole, remove, userById, userByEmail } as const
  })
}) {}
