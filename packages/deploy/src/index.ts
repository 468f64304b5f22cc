/**
 * @core/deploy — the command-line backend (issue 15) on the domain package template (STYLE.md):
 * `Repos` (source repositories through `SourceHost`), `Deployments` (uploads, status, rollbacks),
 * `DeployJob` (the provisioning job that deploys), `CliFeatures`, `CliSecrets`, `DeploymentsRepo`
 * (SQL), `Policy`, `Errors`, `Http` (one handle per route of `Deploy.CliRoutes`).
 */
export { DeployConfig, type DeploySettings, GITHUB_API_URL } from "./Config.js"
export { CliFeatures } from "./CliFeatures.js"
export { CliSecrets } from "./CliSecrets.js"
export { Deployments, urlOf, type Upload } from "./Deployments.js"
export { toRecord } from "./DeploymentRecord.js"
export { DEPLOY_SITE, DeployJobsLive, makeDeployJob } from "./DeployJob.js"
export { type DeploymentRow, DeploymentsRepo, type RepoRow } from "./DeploymentsRepo.js"
export { DeployHandlers, DeployRouter } from "./Http.js"
export { Repos } from "./Repos.js"
export { DEFAULT_LIMITS, type DeployLimits, type DeployPaths, DeployStorage, previewLink, productionLink, siteDir } from "./Storage.js"
export { BuildReporter, type BuildEvent } from "./ports/BuildReporter.js"
export { type CreatedRepo, SourceHost, type NewSourceRepo, type SourceRepo } from "./ports/SourceHost.js"
export { SourceHostLocal } from "./adapters/SourceHostLocal.js"
export * as SourceHostGitHub from "./adapters/SourceHostGitHub.js"
export { DeployMigrations } from "./migrations/index.js"
export { DeployJobs, DeployLive } from "./DeployLive.js"
