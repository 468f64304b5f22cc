/**
 * @core/registry — platforms and their lifecycle, on the domain package template (STYLE.md):
 * `Platforms` (use cases), `Lifecycle` (the transition table), `PlatformsRepo` (SQL), `Policy`
 * (who may do what), `Errors`, `Http` (one handle per catalogued route). `Entities` (a
 * platform's tenants and subtenants). `Resources` (both path families and the lookups), `DnsRecords`
 * (`ports/DnsApplier`), `Secrets` (encrypted at rest): `ResourcesLive`, `ResourceHandlers`.
 * `RegistryJobs`: its job types (resources, features, onboarding) for provisioning's worker.
 */
export * from "./Entities.js"
export * as Lifecycle from "./Lifecycle.js"
export * from "./Platforms.js"
export * from "./PlatformsRepo.js"
export { RegistryHandlers, RegistryRouter } from "./Http.js"
export { PlatformStatusSink } from "./ports/PlatformStatusSink.js"
export { PlatformCreated } from "./ports/PlatformCreated.js"
export { BillingContactFailed, PlatformBillingContact } from "./ports/PlatformBillingContact.js"
export * from "./Resources.js"
export * from "./ResourcesRepo.js"
export * from "./DnsRecords.js"
export * from "./Secrets.js"
export { ResourceHandlers } from "./ResourcesHttp.js"
export { ResourcesLive } from "./ResourcesLive.js"
export { DnsApplier } from "./ports/DnsApplier.js"
export * from "./Features.js"
export { type ActivationRow } from "./FeaturesRepo.js"
export { FeatureHandlers } from "./FeaturesHttp.js"
export { DnsTargetsLive, FeatureRecordsLive, LiveResourcesLive, OnboardingFlowsLive, PlatformDirectoryLive } from "./ProvisioningPorts.js"
export * from "./Onboarding.js"
export { type NewOnboardingRow, type OnboardingRow, OnboardingRepo } from "./OnboardingRepo.js"
export { type OnboardingOrganization, OnboardingOrganizations } from "./ports/OnboardingOrganizations.js"
export { OnboardingHandlers } from "./OnboardingHttp.js"
export { RegistryServices } from "./RegistryLive.js"
export { edgeNameOf, stackInstanceIdOf } from "./jobs/EdgeNames.js"
export { FEATURE_MAX_ATTEMPTS, type FeaturePayload, FeatureJobsLive } from "./jobs/FeatureJobs.js"
export { makeOnboardJob, OnboardJobLive } from "./jobs/OnboardJob.js"
export { RegistryJobs } from "./jobs/RegistryJobs.js"
export { ResourceJobsLive } from "./jobs/ResourceJobs.js"
export { RESOURCE_MAX_ATTEMPTS, ResourceProvisioner } from "./jobs/ResourceProvisioner.js"
export {
  type Environment,
  type NewResource,
  type PlatformView,
  ResourceRecords,
  ResourceRecordsLive,
  type ResourceView,
  type StackVersionView
} from "./jobs/ResourceRecords.js"
export { type StackDefinitionVersion, type StackResourceDefinition, StackDefinitions } from "./ports/StackDefinitions.js"
export { RegistryMigrations } from "./migrations/index.js"
