/**
 * @core/registry — platforms and their lifecycle, on the domain package template (STYLE.md):
 * `Platforms` (use cases), `Lifecycle` (the transition table), `PlatformsRepo` (SQL), `Policy`
 * (who may do what), `Errors`, `Http` (one handle per catalogued route). `Entities` (a
 * platform's tenants and subtenants). `Resources` (both path families and the lookups), `DnsRecords`
 * (`ports/DnsApplier`), `Secrets` (encrypted at rest): `ResourcesLive`, `ResourceHandlers`.
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
export { FeatureActivationsLive, FeatureHandlers } from "./FeaturesHttp.js"
export { FeatureRecordsLive, LiveResourcesLive, OnboardingFlowsLive, PlatformDirectoryLive } from "./ProvisioningPorts.js"
export * from "./Onboarding.js"
export { type NewOnboardingRow, type OnboardingRow, OnboardingRepo } from "./OnboardingRepo.js"
export { type OnboardingOrganization, OnboardingOrganizations } from "./ports/OnboardingOrganizations.js"
export { edgeNameOf, makeOnboardJob, OnboardJobLive } from "./OnboardJob.js"
export { OnboardingHandlers } from "./OnboardingHttp.js"
export { RegistryServices } from "./RegistryLive.js"
export { ResourceRecordsLive } from "./ResourceRecordsLive.js"
export { type StackDefinitionVersion, type StackResourceDefinition, StackDefinitions } from "./ports/StackDefinitions.js"
export { RegistryMigrations } from "./migrations/index.js"
