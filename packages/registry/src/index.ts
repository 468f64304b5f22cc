/**
 * @core/registry — platforms and their lifecycle, on the domain package template (STYLE.md):
 * `Platforms` (use cases), `Lifecycle` (the transition table), `PlatformsRepo` (SQL), `Policy`
 * (who may do what), `Errors`, `Http` (one handle per catalogued route). `Entities` (a
 * platform's tenants and subtenants). Resources and features arrive with issue 12.
 */
export * from "./Entities.js"
export * as Lifecycle from "./Lifecycle.js"
export * from "./Platforms.js"
export * from "./PlatformsRepo.js"
export { RegistryHandlers, RegistryRouter } from "./Http.js"
export { PlatformStatusSink } from "./ports/PlatformStatusSink.js"
export * from "./Features.js"
export { type ActivationRow } from "./FeaturesRepo.js"
export { FeatureActivationsLive, FeatureHandlers } from "./FeaturesHttp.js"
export { RegistryMigrations } from "./migrations/index.js"
