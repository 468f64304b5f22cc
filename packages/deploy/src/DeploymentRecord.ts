import type { Deploy } from "@core/contracts"
import type { DeploymentRow } from "./DeploymentsRepo.js"

/** The record of a deployment as the routes answer it. */
export const toRecord = (row: DeploymentRow, live: ReadonlyMap<string, string>): Deploy.DeploymentRecord => ({
  deploymentId: row.id,
  status: row.status,
  edgeDeploymentId: row.edgeDeploymentId,
  url: row.url,
  errorMessage: row.errorMessage,
  startedAt: row.startedAt,
  completedAt: row.completedAt,
  branch: row.branch,
  environment: row.environment,
  createdAt: row.createdAt,
  live: live.get(row.branch) === row.id
})
