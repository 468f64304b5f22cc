import { Provisioning } from "@core/contracts"
import { type Caller, Route } from "@core/kernel"
import { Effect } from "effect"
import { FEATURE_ACTIVATE, FEATURE_DEACTIVATE } from "./FeatureJobs.js"
import { idempotencyKeyOf, JobCreation, type JobRequest } from "./JobCreation.js"
import { FeatureRecords } from "./ports/FeatureRecords.js"
import * as Targets from "./Targets.js"

/** The job types of seed 001's job-creating routes (fixed names, every helper uses them). */
export const JobTypes = {
  platformProvision: "platform.provision",
  platformDeprovision: "platform.deprovision",
  featureActivate: FEATURE_ACTIVATE,
  featureDeactivate: FEATURE_DEACTIVATE,
  stackActivate: "stack.activate",
  stackDeactivate: "stack.deactivate",
  onboard: "onboard",
  appCreate: "app.create",
  domainAdd: "domain.add",
  authUpgrade: "auth.upgrade"
} as const

const queued = (jobId: string) => ({ jobId, status: "QUEUED" as const })

type Headers = Readonly<Record<string, string | undefined>>

/** Create a job for a route: its `Idempotency-Key` read from the request, the rest as `request` says. */
const createJob = <A extends Record<string, unknown>, E = never, R = never>(
  caller: Caller,
  headers: Headers,
  request: Omit<JobRequest<A, E, R>, "idempotencyKey">
) =>
  Effect.gen(function*() {
    const idempotencyKey = yield* idempotencyKeyOf(headers)
    const creation = yield* JobCreation
    return yield* creation.create(caller, { ...request, idempotencyKey })
  })

/**
 * Seed 001's job-creating routes (`Provisioning.JobCreationRoutes`): each validates its body,
 * checks the caller, and enqueues its job type with the parsed body as payload (decision 0288).
 */
export const JobCreationHandlers = [
  Route.handle(Provisioning.JobCreationRoutes.provisionPlatform, ({ body, caller, request }) =>
    createJob(caller, request.headers, {
      type: JobTypes.platformProvision,
      owner: { platformId: body.platformId },
      payload: body,
      target: Targets.platform(body.platformId),
      answer: queued
    })),
  Route.handle(Provisioning.JobCreationRoutes.activateFeatureJob, ({ body, caller, request }) =>
    Effect.flatMap(FeatureRecords, (records) => {
      let activationId = ""
      return createJob(caller, request.headers, {
        type: JobTypes.featureActivate,
        owner: { platformId: body.platformId },
        payload: body,
        target: Targets.feature(body.platformId, body.entityId, body.featureId, body.environment),
        before: Effect.map(records.activate(body), (id) => {
          activationId = id
          return { activationId: id }
        }),
        after: (jobId) => records.attachJob(activationId, jobId),
        answer: queued
      })
    })),
  Route.handle(Provisioning.JobCreationRoutes.deactivateFeatureJob, ({ body, caller, request }) =>
    Effect.flatMap(FeatureRecords, (records) => {
      let activationId = ""
      return createJob(caller, request.headers, {
        type: JobTypes.featureDeactivate,
        owner: { platformId: body.platformId },
        payload: body,
        target: Targets.feature(body.platformId, body.entityId, body.featureId, body.environment),
        before: Effect.map(records.deactivate(body), (found) => {
          activationId = found.activationId
          return { activationId: found.activationId, featureVersion: found.featureVersion }
        }),
        after: (jobId) => records.attachJob(activationId, jobId),
        answer: queued
      })
    })),
  Route.handle(Provisioning.JobCreationRoutes.activateStack, ({ body, caller, request }) =>
    createJob(caller, request.headers, {
      type: JobTypes.stackActivate,
      owner: { platformId: body.platformId },
      payload: body,
      target: null,
      answer: queued
    })),
  Route.handle(Provisioning.JobCreationRoutes.deactivateStack, ({ body, caller, request }) =>
    createJob(caller, request.headers, {
      type: JobTypes.stackDeactivate,
      owner: { platformId: body.platformId },
      payload: body,
      target: Targets.stackInstance(body.stackInstanceId),
      answer: queued
    })),
  Route.handle(Provisioning.JobCreationRoutes.onboard, ({ body, caller, request }) =>
    createJob(caller, request.headers, {
      type: JobTypes.onboard,
      owner: { onboardingId: body.onboardingId },
      payload: body,
      target: Targets.onboarding(body.onboardingId),
      answer: queued
    })),
  Route.handle(Provisioning.JobCreationRoutes.createApp, ({ body, caller, request }) =>
    createJob(caller, request.headers, {
      type: JobTypes.appCreate,
      owner: { platformId: body.platformId },
      payload: body,
      target: Targets.app(body.platformId, body.appName),
      answer: queued
    })),
  Route.handle(Provisioning.JobCreationRoutes.addDomain, ({ body, caller, request }) =>
    createJob(caller, request.headers, {
      type: JobTypes.domainAdd,
      owner: { platformId: body.platformId },
      payload: body,
      target: Targets.domain(body.customHostname),
      answer: queued
    })),
  Route.handle(Provisioning.JobCreationRoutes.deprovisionPlatform, ({ body, caller, request }) =>
    createJob(caller, request.headers, {
      type: JobTypes.platformDeprovision,
      owner: { platformId: body.platformId, allowDeleted: true },
      payload: body,
      target: Targets.platform(body.platformId),
      answer: queued
    })),
  Route.handle(Provisioning.JobCreationRoutes.upgradeAuth, ({ body, caller, request }) =>
    createJob(caller, request.headers, {
      type: JobTypes.authUpgrade,
      owner: { platformId: body.platformId },
      payload: body,
      target: Targets.auth(body.platformId),
      operatorOnly: true,
      answer: (jobId) => ({ jobId, platformId: body.platformId })
    }))
]
