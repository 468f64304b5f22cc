import { Provisioning } from "@core/contracts"
import { type Caller, type InvalidState, type NotFound, Route } from "@core/kernel"
import { type Context, Effect } from "effect"
import * as Types from "./JobTypes.js"
import { idempotencyKeyOf, JobCreation, type Owner } from "./JobCreation.js"
import { FeatureRecords } from "./ports/FeatureRecords.js"
import { OnboardingFlows } from "./ports/OnboardingFlows.js"
import * as Targets from "./Targets.js"

/** The job types of seed 001's job-creating routes (fixed names, every helper uses them). */
export const JobTypes = {
  platformProvision: Types.PLATFORM_PROVISION,
  platformDeprovision: Types.PLATFORM_DEPROVISION,
  featureActivate: Types.FEATURE_ACTIVATE,
  featureDeactivate: Types.FEATURE_DEACTIVATE,
  stackActivate: Types.STACK_ACTIVATE,
  stackDeactivate: Types.STACK_DEACTIVATE,
  onboard: Types.ONBOARD,
  appCreate: Types.APP_CREATE,
  domainAdd: Types.DOMAIN_ADD,
  authUpgrade: Types.AUTH_UPGRADE
} as const

const queued = (jobId: string) => ({ jobId, status: "QUEUED" as const })

type Headers = Readonly<Record<string, string | undefined>>

/** What a job-creating route's handler receives (of `Route.Input`). */
interface CreationInput<B> {
  readonly body: B
  readonly caller: Caller
  readonly request: { readonly headers: Headers }
}

/** A job-creating route as one row: what its job is, and what of the body says whose and on what. */
interface Creation<B, A extends Record<string, unknown>> {
  readonly type: string
  /** What the job works on (`Targets.*`). */
  readonly target: (body: B) => string | null
  /** Whose job it is. @default the body's `platformId` */
  readonly owner?: (body: B) => Owner
  /** Operators only (the route's `auth` checked the role). */
  readonly operatorOnly?: true
  /** What the route answers. */
  readonly answer: (body: B, jobId: string) => A
  /**
   * The registry activation the job moves (decision 0289): made or found in the job's
   * transaction (its id and more into the payload), the job recorded on it after.
   */
  readonly activation?: (records: Context.Tag.Service<typeof FeatureRecords>, body: B) => Effect.Effect<
    { readonly activationId: string } & Record<string, unknown>,
    NotFound | InvalidState
  >
}

/**
 * The handler of a job-creating route (decision 0288): the request's `Idempotency-Key` read, the
 * caller checked and the job enqueued by `JobCreation` with the parsed body as payload.
 */
const creatingAs = <B extends Record<string, unknown>, A extends Record<string, unknown>>(spec: Creation<B, A>) =>
({ body, caller, request }: CreationInput<B>) =>
  Effect.gen(function*() {
    const idempotencyKey = yield* idempotencyKeyOf(request.headers)
    const creation = yield* JobCreation
    const activation = spec.activation
    const records = activation === undefined ? undefined : yield* FeatureRecords
    let activationId = ""
    return yield* creation.create<A, NotFound | InvalidState, never>(caller, {
      type: spec.type,
      owner: spec.owner?.(body) ?? { platformId: String(body.platformId) },
      payload: body,
      target: spec.target(body),
      idempotencyKey,
      ...(spec.operatorOnly === undefined ? {} : { operatorOnly: true }),
      ...(activation === undefined || records === undefined ? {} : {
        before: Effect.tap(activation(records, body), (found) => {
          activationId = found.activationId
        }),
        after: (jobId: string) => records.attachJob(activationId, jobId)
      }),
      answer: (jobId) => spec.answer(body, jobId)
    })
  })

/** `creatingAs` of a route answering `{ jobId, status: "QUEUED" }` (every one but `auth/upgrade`). */
const creating = <B extends Record<string, unknown>>(spec: Omit<Creation<B, ReturnType<typeof queued>>, "answer">) =>
  creatingAs<B, ReturnType<typeof queued>>({ ...spec, answer: (_, jobId) => queued(jobId) })

const routes = Provisioning.JobCreationRoutes

/**
 * Seed 001's job-creating routes (`Provisioning.JobCreationRoutes`), one row each: each validates
 * its body, checks the caller, and enqueues its job type with the parsed body as payload
 * (decision 0288).
 */
export const JobCreationHandlers = [
  Route.handle(routes.provisionPlatform, creating({ type: JobTypes.platformProvision, target: (b) => Targets.platform(b.platformId) })),
  Route.handle(routes.activateFeatureJob, creating({
    type: JobTypes.featureActivate,
    target: (b) => Targets.feature(b.platformId, b.entityId, b.featureId, b.environment),
    activation: (records, b) => Effect.map(records.activate(b), (activationId) => ({ activationId }))
  })),
  Route.handle(routes.deactivateFeatureJob, creating({
    type: JobTypes.featureDeactivate,
    target: (b) => Targets.feature(b.platformId, b.entityId, b.featureId, b.environment),
    activation: (records, b) =>
      Effect.map(records.deactivate(b), (found) => ({ activationId: found.activationId, featureVersion: found.featureVersion }))
  })),
  Route.handle(routes.activateStack, creating({ type: JobTypes.stackActivate, target: () => null })),
  Route.handle(routes.deactivateStack, creating({ type: JobTypes.stackDeactivate, target: (b) => Targets.stackInstance(b.stackInstanceId) })),
  // The onboardingId is the flow's id and its idempotency key (decision 0575): the registry starts
  // the flow, or answers the job of the one it has.
  Route.handle(routes.onboard, ({ body, caller, request }) =>
    Effect.gen(function*() {
      yield* idempotencyKeyOf(request.headers)
      const flows = yield* OnboardingFlows
      return queued((yield* flows.onboard(caller, body)).jobId)
    })),
  Route.handle(routes.createApp, creating({ type: JobTypes.appCreate, target: (b) => Targets.app(b.platformId, b.appName) })),
  Route.handle(routes.addDomain, creating({ type: JobTypes.domainAdd, target: (b) => Targets.domain(b.customHostname) })),
  Route.handle(routes.deprovisionPlatform, creating({
    type: JobTypes.platformDeprovision,
    owner: (b) => ({ platformId: b.platformId, allowDeleted: true }),
    target: (b) => Targets.platform(b.platformId)
  })),
  Route.handle(routes.upgradeAuth, creatingAs({
    type: JobTypes.authUpgrade,
    target: (b) => Targets.auth(b.platformId),
    operatorOnly: true,
    answer: (b, jobId) => ({ jobId, platformId: b.platformId })
  }))
]
