/**
 * @core/registry — platforms (more of the registry arrives with its issue).
 */
export * from "./Platforms.js"
export * from "./PlatformsRepo.js"
export { RegistryMigrations } from "./migrations/index.js"
