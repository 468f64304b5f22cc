/**
 * @core/stacks — the stack catalogue on the domain package template (STYLE.md): `Catalogue` (use
 * cases), `StacksRepo` (SQL), `LatestVersion` (semantic-version order), `Errors`, `Http` (one
 * handle per catalogued route of `Stacks.StackRoutes`).
 */
export * from "./Catalogue.js"
export * from "./StacksRepo.js"
export * as LatestVersion from "./LatestVersion.js"
export { StacksHandlers, StacksRouter } from "./Http.js"
export { StacksMigrations } from "./migrations/index.js"
