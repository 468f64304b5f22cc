/**
 * @core/provisioning — the job queue and its worker, the feature job types, the `EdgeProvider`
 * port and its local adapter, provisioning's view of platform status, and its settings. Issue 13
 * grows it into the full queue (every job type, operator controls, dead letters, Cloudflare).
 */
export { type Cloudflare, ProvisioningConfig, type ProvisioningSettings } from "./Config.js"
export * as Jobs from "./Jobs.js"
export type { Enqueued, JobRow, NewJob } from "./Jobs.js"
export { type JobContext, JobFailed, type JobHandler, JobHandlers } from "./JobHandlers.js"
export { JobQueue } from "./JobQueue.js"
export { JobEvents, type JobEventsSettings } from "./JobEvents.js"
export { JobControls } from "./JobControls.js"
export { DeadLetters } from "./DeadLetters.js"
export { JobApiHandlers, JobApiLive } from "./JobsHttp.js"
export * as Worker from "./Worker.js"
export { FEATURE_ACTIVATE, FEATURE_DEACTIVATE, type FeaturePayload, FeatureJobsLive } from "./FeatureJobs.js"
export { type EdgeFeature, EdgeProvider } from "./ports/EdgeProvider.js"
export type { EdgeResourceHandle, EdgeResourceListing, EdgeResourceSpec, EdgeResourceType } from "./ports/EdgeProvider.js"
export * as LocalEdge from "./adapters/LocalEdge.js"
export type { LocalEdgeOptions } from "./adapters/EdgeProviderLocal.js"
export { type ActivationOutcome, FeatureActivations } from "./ports/FeatureActivations.js"
export { EdgeProviderLocal } from "./adapters/EdgeProviderLocal.js"
export * as EdgeProviderCloudflare from "./adapters/EdgeProviderCloudflare.js"
export { PlatformStatuses } from "./PlatformStatuses.js"
export { ProvisioningHandlers, ProvisioningRouter } from "./Http.js"
export { ProvisioningMigrations } from "./migrations/index.js"
export {
  APP_CREATE,
  DOMAIN_ADD,
  domainIdOf,
  edgeNameOf,
  PLATFORM_DEPROVISION,
  PLATFORM_PROVISION,
  ResourceJobsLive,
  ResourceProvisioner,
  STACK_ACTIVATE,
  STACK_DEACTIVATE,
  stackInstanceIdOf
} from "./ResourceJobs.js"
export { type Environment, type NewResource, type PlatformView, ResourceRecords, type ResourceView, type StackVersionView } from "./ports/ResourceRecords.js"
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
