import { Layer } from "effect"
import * as SourceHostGitHub from "./adapters/SourceHostGitHub.js"
import { SourceHostLocal } from "./adapters/SourceHostLocal.js"
import { CliFeatures } from "./CliFeatures.js"
import { CliSecrets } from "./CliSecrets.js"
import { DeployJobsLive } from "./DeployJob.js"
import { Deployments } from "./Deployments.js"
import { DeploymentsRepo } from "./DeploymentsRepo.js"
import { Repos } from "./Repos.js"
import { DeployStorage } from "./Storage.js"

/**
 * Every service behind `DeployHandlers`, on the source host configuration selects (GitHub with
 * `GITHUB_TOKEN`, else local) and the data directory's storage. The host provides the database,
 * `CoreConfig`, `DeployConfig`, `Ids`, the callers, the `EdgeProvider` (secrets), and the registry's
 * `Platforms`, `Features`, `Resources` and `Secrets` services.
 */
export const DeployLive = Layer.mergeAll(Deployments.Default, CliFeatures.Default, CliSecrets.Default).pipe(
  Layer.provideMerge(Repos.Default),
  Layer.provideMerge(Layer.merge(DeploymentsRepo.Default, SourceHostGitHub.whenConfigured(SourceHostLocal))),
  Layer.provideMerge(DeployStorage.layer())
)

/**
 * The deployment job for the provisioning worker's `JobHandlers.merge`, with its own repository
 * and storage; the host provides the `EdgeProvider`, the database, `CoreConfig` and a `BuildReporter`.
 */
export const DeployJobs = DeployJobsLive.pipe(Layer.provide(Layer.merge(DeploymentsRepo.Default, DeployStorage.layer())))
