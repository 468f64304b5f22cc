import type { Registry } from "@core/contracts"
import { type Caller, Callers } from "@core/kernel"
import { type JobHandler, JobFailed, JobHandlers, type JobRow } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { makeEntitiesRepo } from "../EntitiesRepo.js"
import { ONBOARD, ONBOARD_MAX_ATTEMPTS, type OnboardPayload, unbuildable } from "../Onboarding.js"
import { PlatformBillingContact } from "../ports/PlatformBillingContact.js"
import { StackDefinitions } from "../ports/StackDefinitions.js"
import { Resources } from "../Resources.js"
import { edgeNameOf } from "./EdgeNames.js"
import { ResourceProvisioner } from "./ResourceProvisioner.js"
import { settleResources } from "./ResourceJobs.js"
import { ResourceRecords } from "./ResourceRecords.js"

/** Core's own jobs act as the service key. */
const SYSTEM: Caller = { kind: "service" }

const payloadOf = (job: JobRow): Effect.Effect<OnboardPayload, JobFailed> => {
  const p = job.payload
  return typeof p.onboardingId === "string" && typeof p.platformId === "string" && typeof p.slug === "string"
    ? Effect.succeed(p as unknown as OnboardPayload)
    : Effect.fail(new JobFailed({ message: "An onboard job needs onboardingId, platformId and slug in its payload" }))
}

const fail = (message: string) => new JobFailed({ message })

/**
 * The `onboard` job: its steps are memoized, so a retry resumes
 * where the last attempt stopped.
 *
 * 1. `platform`: the platform the flow created is there and live, with its default tenant.
 * 2. `billing-contact` (when the flow names a billing email and billing is reachable): the email
 *    becomes the email of the platform's customer at the payment provider (decision 0578).
 * 3. `stack` (when the flow names a template): the template's latest published version, each of its
 *    resources recorded `pending` on the default tenant under a deterministic edge name (one that
 *    exists already is kept: a retry makes nothing twice). The resource provisioner makes them
 *    on the edge.
 *
 * The result names the platform, its default tenant, the stack version and the resources.
 */
export const makeOnboardJob = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const resources = yield* Resources
  const stacks = yield* Effect.serviceOption(StackDefinitions)
  const callers = yield* Callers
  const provisioner = yield* Effect.serviceOption(ResourceProvisioner)
  const billingContact = yield* Effect.serviceOption(PlatformBillingContact)
  const records = yield* Effect.serviceOption(ResourceRecords)

  const defaultTenantOf = makeEntitiesRepo(sql).defaultTenantOf

  const handler: JobHandler = {
    maxAttempts: ONBOARD_MAX_ATTEMPTS,
    // The resources its `stack` step left unfinished, as for the resource jobs (decision 0312).
    ...(Option.isSome(records) ? { settle: settleResources(records.value) } : {}),
    run: (job, context) =>
      Effect.gen(function*() {
        const flow = yield* payloadOf(job)
        let tenantId = ""
        yield* context.step("platform", Effect.gen(function*() {
          const found = yield* defaultTenantOf(flow.platformId)
          if (Option.isNone(found)) return yield* fail(`Platform ${flow.platformId} or its default tenant is gone`)
          if (found.value.status !== "active") return yield* fail(`Platform ${flow.platformId} is ${found.value.status}, not active`)
        }))
        const tenant = yield* defaultTenantOf(flow.platformId)
        if (Option.isNone(tenant)) return yield* fail(`Platform ${flow.platformId} or its default tenant is gone`)
        tenantId = tenant.value.id
        const billingEmail = flow.billingEmail
        if (typeof billingEmail === "string" && Option.isSome(billingContact)) {
          yield* context.step("billing-contact", billingContact.value.set(flow.platformId, billingEmail).pipe(
            Effect.mapError((error) => fail(`Billing was not told the billing email: ${error.message}`))
          ))
        }
        yield* context.progress(0.3)

        let stack: { readonly version: string; readonly resources: ReadonlyArray<string> } | null = null
        if (flow.stackTemplateId !== null && flow.stackTemplateId !== undefined) {
          const name = flow.stackTemplateId
          if (Option.isNone(stacks)) return yield* fail("The stack catalogue is not available")
          const latest = yield* stacks.value.latest(name)
          if (Option.isNone(latest)) return yield* fail(`Stack template ${name} not found`)
          if (latest.value === undefined) return yield* fail(`Stack template ${name} has no published version`)
          const version = latest.value
          const why = unbuildable(version)
          if (why !== undefined) return yield* fail(`Stack template ${name} ${version.version} cannot be built: ${why}`)
          yield* context.step("stack", Effect.forEach(version.resources, (resource) =>
            Effect.gen(function*() {
              const edgeName = edgeNameOf(flow.slug, resource.environment, resource.name)
              yield* resources.create(SYSTEM, flow.platformId, tenantId, {
                stackId: version.templateId,
                resourceType: resource.type as Registry.ResourceType,
                serviceName: resource.name,
                environment: resource.environment as Registry.ResourceEnvironment,
                edgeName
              }).pipe(
                Effect.asVoid,
                // Made by an earlier attempt: keep it.
                Effect.catchTag("Conflict", () => Effect.void),
                Effect.catchAll((error) => Effect.fail(fail(`Could not record ${resource.name}: ${error.message}`)))
              )
            }), { discard: true }))
          stack = { version: version.version, resources: yield* resources.liveIdsOfStack(flow.platformId, version.templateId) }
          // 3. The recorded resources made on the edge (`pending → provisioning → active`), one
          //    memoized step each (`ResourceProvisioner`, when the worker has it).
          if (Option.isSome(provisioner)) {
            yield* context.progress(0.5)
            yield* provisioner.value.provisionIds(flow.platformId, stack.resources, context, job)
          }
        }
        yield* context.progress(0.9)
        return {
          onboardingId: flow.onboardingId,
          platformId: flow.platformId,
          entityId: tenantId,
          ...(stack === null ? {} : { stackTemplateId: flow.stackTemplateId, stackVersion: stack.version, resourceIds: stack.resources })
        }
      }).pipe(Effect.provideService(Callers, callers))
  }
  return [ONBOARD, handler] as const
})

/** The `onboard` job as a handler registry for provisioning's worker (`JobHandlers.merge` it with the others). */
export const OnboardJobLive = Layer.effect(JobHandlers, Effect.map(makeOnboardJob, (entry) => new Map([entry])))
