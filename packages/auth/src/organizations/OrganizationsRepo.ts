import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** A row of `iam.organizations`. */
export interface OrganizationRow {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly orgType: "core-operator" | "tenant"
  readonly logo: string | null
  readonly metadata: Record<string, unknown> | null
  readonly platformId: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** What a new organization row holds. */
export interface NewOrganizationRow {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly orgType: "core-operator" | "tenant"
  readonly logo: string | null
  readonly metadata: Record<string, unknown> | null
  readonly now: Date
}

/** The fields an update may change (`undefined` keeps the value). */
export interface OrganizationPatch {
  readonly name?: string | undefined
  readonly slug?: string | undefined
  readonly logo?: string | null | undefined
  readonly metadata?: Record<string, unknown> | undefined
}

const toRow = (raw: Record<string, unknown>): OrganizationRow => ({
  id: raw.id as string,
  name: raw.name as string,
  slug: raw.slug as string,
  orgType: raw.orgType as OrganizationRow["orgType"],
  logo: (raw.logo as string | null) ?? null,
  metadata: Rows.jsonObject(raw.metadata),
  platformId: (raw.platformId as string | null) ?? null,
  createdAt: Rows.toDate(raw.createdAt),
  updatedAt: Rows.toDate(raw.updatedAt)
})

const jsonOrNull = (value: Record<string, unknown> | null | undefined) =>
  value === null || value === undefined ? null : JSON.stringify(value)

/** The SQL of `iam.organizations` and the rows that come with an organization. Database failures are defects. */
export class OrganizationsRepo extends Effect.Service<OrganizationsRepo>()("@core/auth/OrganizationsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(`o.id, o.name, o.slug, o.org_type AS "orgType", o.logo, o.metadata,
      o.platform_id AS "platformId", o.created_at AS "createdAt", o.updated_at AS "updatedAt"`)
    const first = (rows: ReadonlyArray<Record<string, unknown>>) => Option.map(Option.fromNullable(rows[0]), toRow)

    /** Insert an organization; `None` when the slug is taken (or a second operator organization). */
    const insert = (row: NewOrganizationRow) =>
      sql<Record<string, unknown>>`INSERT INTO iam.organizations AS o
          (id, name, slug, org_type, logo, metadata, created_at, updated_at)
        VALUES (${row.id}, ${row.name}, ${row.slug}, ${row.orgType}, ${row.logo},
          ${jsonOrNull(row.metadata)}::jsonb, ${row.now}, ${row.now})
        ON CONFLICT DO NOTHING
        RETURNING ${columns}`.pipe(Effect.map(first), Effect.orDie, Effect.withSpan("OrganizationsRepo.insert"))

    const findById = (id: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM iam.organizations o WHERE o.id = ${id}`.pipe(
        Effect.map(first),
        Effect.orDie,
        Effect.withSpan("OrganizationsRepo.findById")
      )

    const findBySlug = (slug: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM iam.organizations o WHERE o.slug = ${slug}`.pipe(
        Effect.map(first),
        Effect.orDie,
        Effect.withSpan("OrganizationsRepo.findBySlug")
      )

    /** The operator organization (`org_type = 'core-operator'`), when it exists. */
    const findOperator = sql<Record<string, unknown>>`SELECT ${columns} FROM iam.organizations o
      WHERE o.org_type = 'core-operator'`.pipe(
      Effect.map(first),
      Effect.orDie,
      Effect.withSpan("OrganizationsRepo.findOperator")
    )

    /** The organizations a user is a member of, oldest membership first. */
    const listForUser = (userId: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM iam.organizations o
        JOIN iam.members m ON m.organization_id = o.id
        WHERE m.user_id = ${userId}
        ORDER BY m.created_at, o.id`.pipe(
        Effect.map((rows) => rows.map(toRow)),
        Effect.orDie,
        Effect.withSpan("OrganizationsRepo.listForUser")
      )

    /** Apply a patch; `None` when the new slug belongs to another organization. */
    const update = (id: string, patch: OrganizationPatch, now: Date) =>
      sql<Record<string, unknown>>`UPDATE iam.organizations AS o SET
          name = COALESCE(${patch.name ?? null}, o.name),
          slug = COALESCE(${patch.slug ?? null}, o.slug),
          logo = ${patch.logo === undefined ? sql`o.logo` : patch.logo},
          metadata = ${patch.metadata === undefined ? sql`o.metadata` : sql`${jsonOrNull(patch.metadata)}::jsonb`},
          updated_at = ${now}
        WHERE o.id = ${id}
          AND NOT EXISTS (SELECT 1 FROM iam.organizations t WHERE t.slug = ${patch.slug ?? null} AND t.id <> ${id})
        RETURNING ${columns}`.pipe(Effect.map(first), Effect.orDie, Effect.withSpan("OrganizationsRepo.update"))

    const remove = (id: string) =>
      sql`DELETE FROM iam.organizations WHERE id = ${id}`.pipe(
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("OrganizationsRepo.remove")
      )

    const setPlatform = (id: string, platformId: string, now: Date) =>
      sql<Record<string, unknown>>`UPDATE iam.organizations AS o SET platform_id = ${platformId}, updated_at = ${now}
        WHERE o.id = ${id} RETURNING ${columns}`.pipe(
        Effect.map(first),
        Effect.flatMap(Option.match({
          onNone: () => Effect.dieMessage(`organization ${id} vanished during setup`),
          onSome: Effect.succeed
        })),
        Effect.orDie,
        Effect.withSpan("OrganizationsRepo.setPlatform")
      )

    /** Lock an organization's row until the transaction ends (serializes owner changes). */
    const lock = (id: string) =>
      sql`SELECT id FROM iam.organizations WHERE id = ${id} FOR UPDATE`.pipe(
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("OrganizationsRepo.lock")
      )

    /** Write the role mappings of a new organization (rows of `iam.role_mappings`). */
    const insertRoleMappings = (
      organizationId: string,
      mappings: ReadonlyArray<{ readonly role: string; readonly permissions: ReadonlyArray<string> }>,
      now: Date
    ) =>
      Effect.forEach(mappings, (mapping) =>
        sql`INSERT INTO iam.role_mappings (organization_id, role, permissions, updated_at)
          VALUES (${organizationId}, ${mapping.role}, ${JSON.stringify(mapping.permissions)}::jsonb, ${now})
          ON CONFLICT (organization_id, role) DO NOTHING`, { discard: true }).pipe(
        Effect.orDie,
        Effect.withSpan("OrganizationsRepo.insertRoleMappings")
      )

    /** Set (or clear) a session's active organization. */
    const setActiveOrganization = (sessionId: string, organizationId: string | null, now: Date) =>
      sql`UPDATE iam.sessions SET active_organization_id = ${organizationId}, updated_at = ${now}
        WHERE id = ${sessionId}`.pipe(
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("OrganizationsRepo.setActiveOrganization")
      )

    /** Clear the organization from the sessions that have it active (of one user, or of everyone). */
    const clearActiveOrganization = (organizationId: string, userId?: string) =>
      sql`UPDATE iam.sessions SET active_organization_id = NULL
        WHERE active_organization_id = ${organizationId}
          ${userId === undefined ? sql`` : sql`AND user_id = ${userId}`}`.pipe(
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("OrganizationsRepo.clearActiveOrganization")
      )

    /**
     * A suspended platform whose organization the user owns (the first by platform id), `None` when
     * it owns none; `iam.platform_status` is the effective status the gateway refuses with 451.
     */
    const suspendedPlatformOwnedBy = (userId: string) =>
      sql<{ platformId: string }>`SELECT o.platform_id AS "platformId"
        FROM iam.members m
          JOIN iam.organizations o ON o.id = m.organization_id
          JOIN iam.platform_status ps ON ps.platform_id = o.platform_id
        WHERE m.user_id = ${userId} AND m.role = 'owner' AND ps.status = 'suspended'
        ORDER BY o.platform_id LIMIT 1`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => row.platformId)),
        Effect.orDie,
        Effect.withSpan("OrganizationsRepo.suspendedPlatformOwnedBy")
      )

    /** Whether the platform is `suspended` in `iam.platform_status`. */
    const isSuspended = (platformId: string) =>
      sql<{ suspended: boolean }>`SELECT EXISTS (SELECT 1 FROM iam.platform_status
          WHERE platform_id = ${platformId} AND status = 'suspended') AS suspended`.pipe(
        Effect.map((rows) => rows[0]?.suspended === true),
        Effect.orDie,
        Effect.withSpan("OrganizationsRepo.isSuspended")
      )

    return {
      suspendedPlatformOwnedBy,
      isSuspended,
      insert,
      findById,
      findBySlug,
      findOperator,
      listForUser,
      update,
      remove,
      setPlatform,
      lock,
      insertRoleMappings,
      setActiveOrganization,
      clearActiveOrganization
    } as const
  })
}) {}
