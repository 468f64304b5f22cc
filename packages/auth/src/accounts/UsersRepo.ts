import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** A user row, without its password hash. */
export interface UserRecord {
  readonly id: string
  readonly name: string
  readonly email: string
  readonly emailVerified: boolean
  readonly image: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** A user with the scrypt hash of its password (`null` for magic-link-only users). */
export interface UserCredentials {
  readonly user: UserRecord
  readonly passwordHash: string | null
}

interface UserRow {
  readonly id: string
  readonly name: string
  readonly email: string
  readonly email_verified: boolean
  readonly image: string | null
  readonly password_hash: string | null
  readonly created_at: unknown
  readonly updated_at: unknown
}

const toUser = (row: UserRow): UserRecord => ({
  id: row.id,
  name: row.name,
  email: row.email,
  emailVerified: row.email_verified,
  image: row.image,
  createdAt: Rows.toDate(row.created_at),
  updatedAt: Rows.toDate(row.updated_at)
})

const toCredentials = (row: UserRow): UserCredentials => ({ user: toUser(row), passwordHash: row.password_hash })

/** The SQL of `iam.users`. Emails are stored lower-cased and looked up through `lower(email)`. */
export class UsersRepo extends Effect.Service<UsersRepo>()("@core/auth/UsersRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const first = <A>(rows: ReadonlyArray<UserRow>, f: (row: UserRow) => A): Option.Option<A> =>
      Option.map(Option.fromNullable(rows[0]), f)

    /** Insert a user; `None` when the email is taken. */
    const insert = (input: {
      readonly id: string
      readonly name: string
      readonly email: string
      readonly image: string | null
      readonly passwordHash: string | null
      readonly emailVerified: boolean
      readonly now: Date
    }) =>
      sql<UserRow>`INSERT INTO iam.users (id, name, email, email_verified, image, password_hash, created_at, updated_at)
        VALUES (${input.id}, ${input.name}, ${input.email.toLowerCase()}, ${input.emailVerified}, ${input.image},
          ${input.passwordHash}, ${input.now}, ${input.now})
        ON CONFLICT DO NOTHING
        RETURNING *`.pipe(Effect.map((rows) => first(rows, toUser)), Effect.orDie, Effect.withSpan("UsersRepo.insert"))

    const findById = (id: string) =>
      sql<UserRow>`SELECT * FROM iam.users WHERE id = ${id}`.pipe(
        Effect.map((rows) => first(rows, toUser)),
        Effect.orDie,
        Effect.withSpan("UsersRepo.findById")
      )

    const credentialsById = (id: string) =>
      sql<UserRow>`SELECT * FROM iam.users WHERE id = ${id}`.pipe(
        Effect.map((rows) => first(rows, toCredentials)),
        Effect.orDie,
        Effect.withSpan("UsersRepo.credentialsById")
      )

    const credentialsByEmail = (email: string) =>
      sql<UserRow>`SELECT * FROM iam.users WHERE lower(email) = ${email.toLowerCase()}`.pipe(
        Effect.map((rows) => first(rows, toCredentials)),
        Effect.orDie,
        Effect.withSpan("UsersRepo.credentialsByEmail")
      )

    const updateProfile = (id: string, profile: { readonly name: string; readonly image: string | null }, now: Date) =>
      sql<UserRow>`UPDATE iam.users SET name = ${profile.name}, image = ${profile.image}, updated_at = ${now}
        WHERE id = ${id} RETURNING *`.pipe(
        Effect.map((rows) => first(rows, toUser)),
        Effect.orDie,
        Effect.withSpan("UsersRepo.updateProfile")
      )

    const setPassword = (id: string, passwordHash: string, now: Date) =>
      sql`UPDATE iam.users SET password_hash = ${passwordHash}, updated_at = ${now} WHERE id = ${id}`.pipe(
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("UsersRepo.setPassword")
      )

    /**
     * Mark the email verified. With `dropPassword`, also forget a password set before the email was
     * proven (someone else may have signed up with it), as better-auth's magic link does.
     */
    const markEmailVerified = (id: string, now: Date, dropPassword: boolean) =>
      sql<UserRow>`UPDATE iam.users SET email_verified = true, updated_at = ${now},
          password_hash = CASE WHEN ${dropPassword} THEN NULL ELSE password_hash END
        WHERE id = ${id} RETURNING *`.pipe(
        Effect.map((rows) => first(rows, toUser)),
        Effect.orDie,
        Effect.withSpan("UsersRepo.markEmailVerified")
      )

    const remove = (id: string) =>
      sql`DELETE FROM iam.users WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie, Effect.withSpan("UsersRepo.remove"))

    /** An organization whose only owner is this user, if any (it would be left without one). */
    const soleOwnedOrganization = (userId: string) =>
      sql<{ readonly organization_id: string }>`SELECT m.organization_id FROM iam.members m
        WHERE m.user_id = ${userId} AND m.role = 'owner'
          AND NOT EXISTS (
            SELECT 1 FROM iam.members o
            WHERE o.organization_id = m.organization_id AND o.role = 'owner' AND o.user_id <> ${userId}
          )
        LIMIT 1`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => row.organization_id)),
        Effect.orDie,
        Effect.withSpan("UsersRepo.soleOwnedOrganization")
      )

    /** The organizations the user belongs to. */
    const organizationIds = (userId: string) =>
      sql<{ readonly organization_id: string }>`SELECT organization_id FROM iam.members WHERE user_id = ${userId}`.pipe(
        Effect.map((rows) => rows.map((row) => row.organization_id)),
        Effect.orDie,
        Effect.withSpan("UsersRepo.organizationIds")
      )

    return {
      insert,
      findById,
      credentialsById,
      credentialsByEmail,
      updateProfile,
      setPassword,
      markEmailVerified,
      remove,
      soleOwnedOrganization,
      organizationIds
    } as const
  })
}) {}
