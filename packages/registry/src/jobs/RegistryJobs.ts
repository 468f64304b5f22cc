import { EdgeTeardown, JobHandlers, StackInstancesRepo } from "@core/provisioning"
import { Layer } from "effect"
import { Features } from "../Features.js"
import { Platforms } from "../Platforms.js"
import { Resources } from "../Resources.js"
import { FeatureJobsLive } from "./FeatureJobs.js"
import { OnboardJobLive } from "./OnboardJob.js"
import { ResourceJobsLive } from "./ResourceJobs.js"
import { ResourceProvisioner } from "./ResourceProvisioner.js"
import { ResourceRecordsLive } from "./ResourceRecords.js"

/**
 * The registry's job types for provisioning's worker, wired here with what they need of the
 * registry: the resource jobs (`platform.provision`, `platform.deprovision`, `stack.activate`,
 * `stack.deactivate`, `app.create`), the feature jobs (`feature.activate`, `feature.deactivate`)
 * and `onboard`. The host provides the `EdgeProvider`, the database, `Ids` and `Callers`, and, when
 * it has them, `StackDefinitions` (stack versions) and `PlatformBillingContact` (an onboarding's
 * billing email).
 *
 * @example
 * Worker.layerConfig().pipe(Layer.provide(JobHandlers.merge(ProvisioningJobs, RegistryJobs, DeployJobs)))
 */
export const RegistryJobs = JobHandlers.merge(ResourceJobsLive, FeatureJobsLive, OnboardJobLive).pipe(
  Layer.provide(Layer.mergeAll(
    ResourceProvisioner.Live.pipe(Layer.provideMerge(ResourceRecordsLive)),
    StackInstancesRepo.Default,
    EdgeTeardown.Default,
    Features.DefaultWithoutDependencies,
    Resources.Default
  )),
  Layer.provide(Platforms.Default)
)
