import type { Registry } from "@core/contracts"
import { Registry as Contracts } from "@core/contracts"
import { type Caller, type Callers, type Conflict, type Forbidden, Ids, type NotFound, Policy, type UpstreamUnavailable, type ValidationError } from "@core/kernel"
import { type JobRow, Jobs, type OnboardRequest, Targets } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Clock, Data, Effect, Option } from "effect"
import * as Lifecycle from "./Lifecycle.js"
import { type OnboardingRow, OnboardingRepo } from "./OnboardingRepo.js"
import { Platforms } from "./Platforms.js"
import { canRead } from "./Policy.js"
import { OnboardingOrganizations } from "./ports/OnboardingOrganizations.js"
import { type StackDefinitionVersion, StackDefinitions } from "./ports/StackDefinitions.js"
import { flowMismatch, flowNotFound, onboardingOperatorsOnly, stackCatalogueUnavailable, templateNotFound, templateUnbuildable, templateUnpublished } from "./Errors.js"

/** The job type that carries an onboarding out (seed 001's `POST /api/v1/provision/onboard`). */
export const ONBOARD = "onboard"

/** Attempts of an onboard job before it fails: its steps are memoized, so a retry resumes. */
export const ONBOARD_MAX_ATTEMPTS = 5

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
  organizationId: row.organizationId,
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
    if (Option.isNone(stacks)) return yield* stackCatalogueUnavailable
    const found = yield* stacks.value.latest(name)
    if (Option.isNone(found)) return yield* templateNotFound
    if (found.value === undefined) {
      return yield* templateUnpublished(name)
    }
    const why = unbuildable(found.value)
    if (why !== undefined) {
      return yield* templateUnbuildable(name, found.value.version, why)
    }
  })

/** What a flow is started with: the onboard request's fields, defaults applied. */
export interface FlowInput {
  readonly platformName: string
  readonly slug: string
  readonly userId: string | null
  readonly stackTemplateId: string | null
  readonly tier: Registry.PlatformTier
  readonly billingEmail: string | null
}

/** The fields of a flow's request, in the order a conflict names them. */
const REQUEST_FIELDS = ["platformName", "slug", "userId", "stackTemplateId", "tier", "billingEmail"] as const

/** The fields of `input` that differ from what flow `row` was started with. */
export const differingFields = (row: OnboardingRow, input: FlowInput): ReadonlyArray<string> =>
  REQUEST_FIELDS.filter((field) => row[field] !== input[field])

/** A flow of this id was written first (by a concurrent request). */
class FlowExists extends Data.TaggedError("FlowExists")<{}> {}


type StartFailure = Conflict | NotFound | ValidationError | UpstreamUnavailable

/**
 * Onboarding (DESIGN §7, decisions 0236, 0575, 0576): a flow creates its platform — the platform of
 * a new organization of its user, owned by them, when it names one (`OnboardingOrganizations`) —
 * and its `onboard` job, with the flow row, in one transaction, so a slug taken leaves nothing
 * behind and a flow always has its job; the job (run by provisioning's worker) does the rest.
 * `start` is the registry's route (a new `onb_` id); `onboard` is provisioning's, idempotent by the
 * client's `onboardingId`. `read` answers the flow with its job's progress, to whoever may read its
 * platform (another tenant: 404).
 */
export class Onboarding extends Effect.Service<Onboarding>()("@core/registry/Onboarding", {
  effect: Effect.gen(function*() {
    const platforms = yield* Platforms
    const ids = yield* Ids.Ids
    const sql = yield* SqlClient.SqlClient
    const repo = yield* OnboardingRepo
    const stacks = yield* Effect.serviceOption(StackDefinitions)
    const organizations = yield* Effect.serviceOption(OnboardingOrganizations)
    const jobOf = (row: OnboardingRow) => Effect.map(Jobs.find(sql, row.jobId), Option.getOrUndefined)

    /**
     * The flow's platform: the platform of a new organization of the user the request names, when
     * there is an identity to ask; else the operators' (its `ownerUserId` the flow's user).
     */
    const platformFor = (caller: Caller, input: FlowInput, named: boolean) =>
      named && input.userId !== null && Option.isSome(organizations)
        ? Effect.flatMap(
          organizations.value.create(caller, { name: input.platformName, slug: input.slug, ownerUserId: input.userId, tier: input.tier }),
          (made) => Effect.orDie(platforms.get(made.platformId))
        )
        : platforms.create({ name: input.platformName, slug: input.slug, tier: input.tier, organizationId: null, ownerUserId: input.userId })

    /** Start flow `id`: its platform, its job and its row together, or nothing (`FlowExists` when one of that id won). */
    const begin = (caller: Caller, id: string, input: FlowInput, named: boolean): Effect.Effect<OnboardingRow, StartFailure | FlowExists> =>
      Effect.gen(function*() {
        if (input.stackTemplateId !== null) yield* checkTemplate(stacks, input.stackTemplateId)
        const createdBy = Lifecycle.triggerOf(caller, true).triggeredBy
        return yield* sql.withTransaction(Effect.gen(function*() {
          const platform = yield* platformFor(caller, input, named)
          const payload: OnboardPayload = { onboardingId: id, platformId: platform.id, ...input }
          const job = yield* Jobs.enqueue(sql, {
            type: ONBOARD,
            platformId: platform.id,
            organizationId: platform.organizationId,
            payload: { ...payload },
            target: Targets.onboarding(id),
            maxAttempts: ONBOARD_MAX_ATTEMPTS
          }).pipe(Effect.provideService(Ids.Ids, ids))
          const now = new Date(yield* Clock.currentTimeMillis)
          const inserted = yield* repo.insert({ id, ...input, platformId: platform.id, jobId: job.jobId, createdBy, createdAt: now, updatedAt: now })
          return Option.isSome(inserted) ? inserted.value : yield* new FlowExists()
        })).pipe(Effect.catchTag("SqlError", Effect.die))
      })

    /**
     * `POST /api/v1/onboarding` (operators): a new flow; its user is the body's (whose organization
     * the platform's is), else the operator asking (recorded as its owner; the operators' platform).
     */
    const start = Effect.fn("Onboarding.start")(function*(caller: Caller, body: Registry.StartOnboardingRequest) {
      const input: FlowInput = {
        platformName: body.platformName,
        slug: body.slug,
        userId: body.userId ?? (caller.kind === "user" ? caller.userId : null),
        stackTemplateId: body.stackTemplateId ?? null,
        tier: body.tier ?? "starter",
        billingEmail: body.billingEmail ?? null
      }
      const flow = yield* begin(caller, yield* ids.make("onb"), input, body.userId !== undefined).pipe(Effect.catchTag("FlowExists", Effect.die))
      return toOnboardingRecord(flow, yield* jobOf(flow))
    })

    /** The job of an existing flow, for a caller who may manage its platform and the body it was started with. */
    const replay = (caller: Caller, flow: OnboardingRow, input: FlowInput) =>
      Effect.gen(function*() {
        if (!(yield* Policy.isPrivileged(caller))) {
          if (flow.organizationId === null) return yield* flowNotFound
          yield* Policy.requirePermission(caller, flow.organizationId, "platforms:manage", flowNotFound)
        }
        const fields = differingFields(flow, input)
        if (fields.length > 0) {
          return yield* flowMismatch(flow.id, fields)
        }
        return { jobId: flow.jobId }
      })

    /**
     * `POST /api/v1/provision/onboard` (decision 0575): the flow `onboardingId` started from the body
     * (operators and the service key), or, when it exists, its job again for the same body (409 for
     * another). A concurrent request with the same id answers the flow that won.
     */
    const onboard = Effect.fn("Onboarding.onboard")(function*(caller: Caller, request: OnboardRequest) {
      const id = request.onboardingId
      const input: FlowInput = {
        platformName: request.platformName,
        slug: request.slug,
        userId: request.userId,
        stackTemplateId: request.stackTemplateId ?? null,
        tier: request.tier,
        billingEmail: request.billingEmail ?? null
      }
      const existing = yield* repo.find(id)
      if (Option.isSome(existing)) return yield* replay(caller, existing.value, input)
      if (!(yield* Policy.isPrivileged(caller))) return yield* onboardingOperatorsOnly
      return yield* begin(caller, id, input, true).pipe(
        Effect.map((flow) => ({ jobId: flow.jobId })),
        Effect.catchAll((error) =>
          Effect.flatMap(repo.find(id), (found): Effect.Effect<{ readonly jobId: string }, StartFailure | Forbidden, Callers> =>
            Option.isSome(found)
              ? replay(caller, found.value, input)
              : error._tag === "FlowExists"
              ? Effect.die(new Error("An onboarding flow vanished while it was answered"))
              : Effect.fail(error)))
      )
    })

    const read = Effect.fn("Onboarding.read")(function*(caller: Caller, id: string) {
      const flow = yield* Effect.flatMap(repo.find(id), (found) => (Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(flowNotFound)))
      const platform = yield* Effect.catchTag(platforms.get(flow.platformId), "NotFound", () => Effect.fail(flowNotFound))
      yield* canRead(caller, platform).pipe(Effect.catchTag("NotFound", () => Effect.fail(flowNotFound)))
      return toOnboardingRecord(flow, yield* jobOf(flow))
    })

    return { start, onboard, read } as const
  }),
  dependencies: [Platforms.Default, OnboardingRepo.Default]
}) {}
