/**
 * @core/provisioning — the job queue and its worker, the registry of job handlers each owner of
 * job types contributes to (`JobHandlers`), operator controls, dead letters, the `EdgeProvider`
 * port with its local and Cloudflare adapters, custom domains, provisioning's view of platform
 * status, and its settings.
 */
export { type Cloudflare, ProvisioningConfig, type ProvisioningSettings } from "./Config.js"
export * as Jobs from "./Jobs.js"
export type { Enqueued, JobRow, NewJob } from "./Jobs.js"
export { type JobContext, JobFailed, type JobHandler, JobHandlers, type OwnedJob } from "./JobHandlers.js"
export { JobQueue } from "./JobQueue.js"
export { JobEvents, type JobEventsSettings } from "./JobEvents.js"
export { JobControls } from "./JobControls.js"
export { DeadLetters } from "./DeadLetters.js"
export { JobApiHandlers, JobApiLive } from "./JobsHttp.js"
export * as Worker from "./Worker.js"
export { type EdgeFeature, EdgeProvider } from "./ports/EdgeProvider.js"
export type { EdgeResourceHandle, EdgeResourceListing, EdgeResourceSpec, EdgeResourceType } from "./ports/EdgeProvider.js"
export * as LocalEdge from "./adapters/LocalEdge.js"
export type { LocalEdgeOptions } from "./adapters/EdgeProviderLocal.js"
export { EdgeProviderLocal } from "./adapters/EdgeProviderLocal.js"
export * as EdgeProviderCloudflare from "./adapters/EdgeProviderCloudflare.js"
export { PlatformStatuses } from "./PlatformStatuses.js"
export { ProvisioningHandlers, ProvisioningRouter } from "./Http.js"
export { ProvisioningMigrations } from "./migrations/index.js"
export {
  APP_CREATE,
  DOMAIN_ADD,
  FEATURE_ACTIVATE,
  FEATURE_DEACTIVATE,
  ONBOARD,
  PLATFORM_DEPROVISION,
  PLATFORM_PROVISION,
  STACK_ACTIVATE,
  STACK_DEACTIVATE
} from "./JobTypes.js"
export { DomainJobsLive, domainIdOf } from "./DomainJobs.js"
export { DomainsRepo } from "./DomainsRepo.js"
export { type StackInstance, StackInstancesRepo } from "./StackInstancesRepo.js"
export { EdgeTeardown } from "./EdgeTeardown.js"
export { DnsTargets } from "./ports/DnsTargets.js"
export { ProvisioningJobs } from "./ProvisioningJobs.js"
export { Domains } from "./Domains.js"
export { DomainHandlers } from "./DomainsHttp.js"
export * as LocalPages from "./LocalPages.js"
export { WORKER_DEFAULTS, WorkerConfig, type WorkerSettings } from "./WorkerConfig.js"
export { TEST_FAIL, TEST_NOOP, TEST_SLEEP, TEST_STEPS, TestJobsIfEnabled, TestJobsLive } from "./TestJobs.js"
export { JobCreation, type JobRequest, type Owner } from "./JobCreation.js"
export { JobCreationHandlers, JobTypes } from "./CreationHttp.js"
export * as Targets from "./Targets.js"
export { type PlatformOwnership, PlatformDirectory } from "./ports/PlatformDirectory.js"
export { type OnboardRequest, OnboardingFlows } from "./ports/OnboardingFlows.js"
export { type FeatureTarget, FeatureRecords } from "./ports/FeatureRecords.js"
export { AUTH_UPGRADE, AUTH_WORKER_VERSION, AuthJobsLive, authWorkerName } from "./AuthJobs.js"
export * as ResourceHours from "./ResourceHours.js"
export { type LiveResource, LiveResources } from "./ports/LiveResources.js"
export { type ResourceHourEvent, UsageReporter } from "./ports/UsageReporter.js"
