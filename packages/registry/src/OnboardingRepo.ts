import type { Registry } from "@core/contracts"
import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** A row of `registry.onboarding_flows`, with its platform's organization. */
export interface OnboardingRow {
  readonly id: string
  readonly platformId: string
  /** The organization of the flow's platform (decision 0576); `null`: the operators'. */
  readonly organizationId: string | null
  readonly platformName: string
  readonly slug: string
  readonly stackTemplateId: string | null
  readonly tier: Registry.PlatformTier
  readonly billingEmail: string | null
  readonly userId: string | null
  readonly jobId: string
  readonly createdBy: string
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** What a new flow row holds. */
export type NewOnboardingRow = Omit<OnboardingRow, "organizationId">

const toRow = (raw: Record<string, unknown>): OnboardingRow => ({
  id: raw.id as string,
  platformId: raw.platformId as string,
  organizationId: Rows.textOrNull(raw.organizationId),
  platformName: raw.platformName as string,
  slug: raw.slug as string,
  stackTemplateId: Rows.textOrNull(raw.stackTemplateId),
  tier: raw.tier as Registry.PlatformTier,
  billingEmail: Rows.textOrNull(raw.billingEmail),
  userId: Rows.textOrNull(raw.userId),
  jobId: raw.jobId as string,
  createdBy: raw.createdBy as string,
  createdAt: Rows.toDate(raw.createdAt),
  updatedAt: Rows.toDate(raw.updatedAt)
})

/** The SQL of onboarding flows (`registry.onboarding_flows`). */
export class OnboardingRepo extends Effect.Service<OnboardingRepo>()("@core/registry/OnboardingRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(`f.id, f.platform_id AS "platformId", p.organization_id AS "organizationId", f.platform_name AS "platformName",
      f.slug, f.stack_template_id AS "stackTemplateId", f.tier, f.billing_email AS "billingEmail", f.user_id AS "userId", f.job_id AS "jobId",
      f.created_by AS "createdBy", f.created_at AS "createdAt", f.updated_at AS "updatedAt"`)

    /** One flow by id. */
    const find = (id: string): Effect.Effect<Option.Option<OnboardingRow>> =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM registry.onboarding_flows f
          LEFT JOIN registry.platforms p ON p.id = f.platform_id
        WHERE f.id = ${id}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toRow)),
        Effect.orDie,
        Effect.withSpan("OnboardingRepo.find")
      )

    /** Insert a flow; `None` when a flow of that id exists (the caller's transaction is then left usable). */
    const insert = (row: NewOnboardingRow): Effect.Effect<Option.Option<OnboardingRow>> =>
      sql<{ id: string }>`INSERT INTO registry.onboarding_flows
          (id, platform_id, platform_name, slug, stack_template_id, tier, billing_email, user_id, job_id, created_by, created_at, updated_at)
        VALUES (${row.id}, ${row.platformId}, ${row.platformName}, ${row.slug}, ${row.stackTemplateId}, ${row.tier},
          ${row.billingEmail}, ${row.userId}, ${row.jobId}, ${row.createdBy}, ${row.createdAt}, ${row.updatedAt})
        ON CONFLICT (id) DO NOTHING
        RETURNING id`.pipe(
        Effect.flatMap((rows) => (rows.length === 0 ? Effect.succeed(Option.none()) : find(row.id))),
        Effect.orDie,
        Effect.withSpan("OnboardingRepo.insert")
      )

    return { find, insert } as const
  })
}) {}
