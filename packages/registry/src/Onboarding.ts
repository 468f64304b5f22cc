import type { Registry } from "@core/contracts"
import { Registry as Contracts } from "@core/contracts"
import { type Caller, Conflict, Ids, NotFound, Rows } from "@core/kernel"
import { type JobRow, Jobs } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import * as Lifecycle from "./Lifecycle.js"
import { Platforms } from "./Platforms.js"
import { canRead } from "./Policy.js"
import { type StackDefinitionVersion, StackDefinitions } from "./ports/StackDefinitions.js"

/** The job type that carries an onboarding out (seed 001's `POST /api/v1/provision/onboard`). */
export const ONBOARD = "onboard"

/** Attempts of an onboard job before it fails: its steps are memoized, so a retry resumes. */
export const ONBOARD_MAX_ATTEMPTS = 5

/** A row of `registry.onboarding_flows`. */
export interface OnboardingRow {
  readonly id: string
  readonly platformId: string
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

/** The payload of an `onboard` job (seed 001's onboard request, with the flow's platform). */
export interface OnboardPayload {
  readonly onboardingId: string
  readonly platformId: string
  readonly platformName: string
  readonly slug: string
  readonly userId: string | null
  readonly stackTemplateId: string | null
  readonly tier: Registry.PlatformTier
  readonly billingEmail: string | null
}

const toRow = (raw: Record<string, unknown>): OnboardingRow => ({
  id: raw.id as string,
  platformId: raw.platformId as string,
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

/** A flow's status from its job's: queued is `pending`, a job between attempts is still `running`. */
const statusOf = (job: JobRow | undefined): Registry.OnboardingStatus => {
  if (job === undefined) return "pending"
  switch (job.status) {
    case "QUEUED":
      return job.attempts === 0 ? "pending" : "running"
    case "RUNNING":
      return "running"
    case "COMPLETED":
      return "completed"
    case "FAILED":
      return "failed"
  }
}

/** A flow as the registry answers it: its request, and its job's status, steps, progress and outcome. */
export const toOnboardingRecord = (row: OnboardingRow, job: JobRow | undefined): Registry.OnboardingRecord => ({
  id: row.id,
  platformId: row.platformId,
  platformName: row.platformName,
  slug: row.slug,
  stackTemplateId: row.stackTemplateId,
  tier: row.tier,
  billingEmail: row.billingEmail,
  userId: row.userId,
  status: statusOf(job),
  provisionJobId: row.jobId,
  jobStatus: job?.status ?? null,
  progress: job?.status === "COMPLETED" ? 1 : job?.progress ?? 0,
  steps: [...(job?.steps ?? [])],
  result: job?.result ?? null,
  error: job?.error ?? null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: (job === undefined || job.updatedAt < row.updatedAt ? row.updatedAt : job.updatedAt).toISOString(),
  completedAt: job?.status === "COMPLETED" ? job.finishedAt?.toISOString() ?? null : null
})

const flowNotFound = new NotFound({ message: "Onboarding flow not found" })
const templateNotFound = new NotFound({ message: "Stack template not found" })

/**
 * Why a stack version cannot be built as registry resources (a type or environment the registry
 * does not know), or undefined when every resource can.
 */
export const unbuildable = (stack: StackDefinitionVersion): string | undefined => {
  for (const [index, resource] of stack.resources.entries()) {
    if (!Contracts.ResourceType.safeParse(resource.type).success) {
      return `resource ${index} (${resource.name}) has type '${resource.type}', not one of ${Contracts.ResourceType.options.join(", ")}`
    }
    if (!Contracts.ResourceEnvironment.safeParse(resource.environment).success) {
      return `resource ${index} (${resource.name}) has environment '${resource.environment}', not one of ${Contracts.ResourceEnvironment.options.join(", ")}`
    }
  }
  return undefined
}

/**
 * The template a flow starts from must be in the catalogue with a published version whose every
 * resource the registry can record: 404 for an unknown (or deprecated) template, 409
 * `CONFLICT` otherwise, so that a flow is not started only to fail in its job.
 */
const checkTemplate = (stacks: Option.Option<StackDefinitions["Type"]>, name: string) =>
  Effect.gen(function*() {
    if (Option.isNone(stacks)) return yield* new Conflict({ message: "The stack catalogue is not available to this registry", details: { field: "stackTemplateId" } })
    const found = yield* stacks.value.latest(name)
    if (Option.isNone(found)) return yield* templateNotFound
    if (found.value === undefined) {
      return yield* new Conflict({ message: `The stack template ${name} has no published version`, details: { field: "stackTemplateId" } })
    }
    const why = unbuildable(found.value)
    if (why !== undefined) {
      return yield* new Conflict({ message: `The stack template ${name} ${found.value.version} cannot be built: ${why}`, details: { field: "stackTemplateId" } })
    }
  })

/**
 * Onboarding (DESIGN §7, decision 0236): `start` creates the platform (and so its default tenant),
 * the flow and its `onboard` job in one transaction, so a slug taken leaves nothing behind and a
 * flow always has its job; the job (run by provisioning's worker) does the rest. `read` answers the
 * flow with its job's progress, to whoever may read its platform (another tenant: 404).
 */
export class Onboarding extends Effect.Service<Onboarding>()("@core/registry/Onboarding", {
  effect: Effect.gen(function*() {
    const platforms = yield* Platforms
    const ids = yield* Ids.Ids
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(`id, platform_id AS "platformId", platform_name AS "platformName", slug,
      stack_template_id AS "stackTemplateId", tier, billing_email AS "billingEmail", user_id AS "userId", job_id AS "jobId",
      created_by AS "createdBy", created_at AS "createdAt", updated_at AS "updatedAt"`)
    const find = (id: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM registry.onboarding_flows WHERE id = ${id}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toRow)),
        Effect.orDie
      )
    const stacks = yield* Effect.serviceOption(StackDefinitions)
    const jobOf = (row: OnboardingRow) => Effect.map(Jobs.find(sql, row.jobId), Option.getOrUndefined)

    const start = Effect.fn("Onboarding.start")(function*(caller: Caller, body: Registry.StartOnboardingRequest) {
      const userId = body.userId ?? (caller.kind === "user" ? caller.userId : null)
      const createdBy = Lifecycle.triggerOf(caller, true).triggeredBy
      if (body.stackTemplateId !== undefined && body.stackTemplateId !== null) yield* checkTemplate(stacks, body.stackTemplateId)
      const id = yield* ids.make("onb")
      const flow = yield* sql.withTransaction(Effect.gen(function*() {
        const platform = yield* platforms.create({
          name: body.platformName,
          slug: body.slug,
          tier: body.tier ?? "starter",
          organizationId: null,
          ownerUserId: userId
        })
        const payload: OnboardPayload = {
          onboardingId: id,
          platformId: platform.id,
          platformName: body.platformName,
          slug: body.slug,
          userId,
          stackTemplateId: body.stackTemplateId ?? null,
          tier: body.tier ?? "starter",
          billingEmail: body.billingEmail ?? null
        }
        const job = yield* Jobs.enqueue(sql, {
          type: ONBOARD,
          platformId: platform.id,
          organizationId: platform.organizationId,
          payload: { ...payload },
          maxAttempts: ONBOARD_MAX_ATTEMPTS
        }).pipe(Effect.provideService(Ids.Ids, ids))
        const now = new Date(yield* Clock.currentTimeMillis)
        const rows = yield* sql<Record<string, unknown>>`INSERT INTO registry.onboarding_flows
            (id, platform_id, platform_name, slug, stack_template_id, tier, billing_email, user_id, job_id, created_by, created_at, updated_at)
          VALUES (${id}, ${platform.id}, ${payload.platformName}, ${payload.slug}, ${payload.stackTemplateId}, ${payload.tier},
            ${payload.billingEmail}, ${userId}, ${job.jobId}, ${createdBy}, ${now}, ${now})
          RETURNING ${columns}`
        return toRow(rows[0]!)
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      return toOnboardingRecord(flow, yield* jobOf(flow))
    })

    const read = Effect.fn("Onboarding.read")(function*(caller: Caller, id: string) {
      const flow = yield* Effect.flatMap(find(id), (found) => (Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(flowNotFound)))
      const platform = yield* Effect.catchTag(platforms.get(flow.platformId), "NotFound", () => Effect.fail(flowNotFound))
      yield* canRead(caller, platform).pipe(Effect.catchTag("NotFound", () => Effect.fail(flowNotFound)))
      return toOnboardingRecord(flow, yield* jobOf(flow))
    })

    return { start, read } as const
  }),
  dependencies: [Platforms.Default]
}) {}
