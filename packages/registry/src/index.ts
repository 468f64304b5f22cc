/**
 * @core/registry — platforms, on the domain package template (STYLE.md): `Platforms` (use cases),
 * `PlatformsRepo` (SQL), `Policy` (who may read), `Errors`, `Http` (one handle per catalogued route).
 * The rest of the registry (lifecycle, entities, resources, features) arrives with its issue.
 */
export * from "./Platforms.js"
export * from "./PlatformsRepo.js"
export { RegistryHandlers, RegistryRouter } from "./Http.js"
export { RegistryMigrations } from "./migrations/index.js"
