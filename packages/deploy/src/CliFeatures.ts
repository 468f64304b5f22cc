import type { Deploy } from "@core/contracts"
import type { Caller } from "@core/kernel"
import { Features } from "@core/registry"
import { Effect } from "effect"
import { platformFor } from "./Policy.js"
import { Repos } from "./Repos.js"

/**
 * Features from the command line (issue 15): applied to the platform's default entity in `prod`
 * (a registry activation and its provisioning job), then recorded in the repository's `core.json`
 * as a commit (decision 0485). Activating what is active answers it again.
 */
export class CliFeatures extends Effect.Service<CliFeatures>()("@core/deploy/CliFeatures", {
  effect: Effect.gen(function*() {
    const features = yield* Features
    const repos = yield* Repos

    const record = (platformId: string, update: (features: Record<string, unknown>) => Record<string, unknown>, message: string) =>
      repos.updateConfig(platformId, (config) => ({
        ...config,
        features: update(typeof config.features === "object" && config.features !== null ? config.features as Record<string, unknown> : {})
      }), message)

    const activate = Effect.fn("CliFeatures.activate")(function*(caller: Caller, platformId: string, body: Deploy.CliActivateFeatureRequest) {
      yield* platformFor(caller, platformId, true)
      const entityId = yield* features.defaultEntityId(platformId)
      const config = body.config ?? {}
      const result = yield* features.activate(caller, platformId, entityId, {
        featureId: body.featureId,
        version: body.version,
        environment: "prod",
        config
      })
      yield* record(platformId, (current) => ({ ...current, [body.featureId]: { version: body.version, config } }), `Activate ${body.featureId}@${body.version}`)
      return { status: "activated" as const, featureId: body.featureId, version: result.activation.featureVersion, provisionJobId: result.activation.provisionJobId }
    })

    const deactivate = Effect.fn("CliFeatures.deactivate")(function*(caller: Caller, platformId: string, body: Deploy.CliDeactivateFeatureRequest) {
      yield* platformFor(caller, platformId, true)
      const entityId = yield* features.defaultEntityId(platformId)
      yield* features.deactivate(caller, platformId, entityId, { featureId: body.featureId, environment: "prod" })
      yield* record(platformId, (current) => Object.fromEntries(Object.entries(current).filter(([name]) => name !== body.featureId)), `Deactivate ${body.featureId}`)
      return { status: "deactivated" as const, featureId: body.featureId }
    })

    return { activate, deactivate } as const
  })
}) {}
