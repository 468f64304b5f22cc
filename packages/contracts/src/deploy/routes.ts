import { defineRoutes } from "../Routes.js"
import {
  BuildStatus,
  CliActivateFeatureRequest,
  CliDeactivateFeatureRequest,
  CliDeploymentParams,
  CliPlatformParams,
  CreateRepoRequest,
  CreateRepoResponse,
  DeployAccepted,
  DeployHeaders,
  DeploymentList,
  DeploymentRecord,
  FeatureActivated,
  FeatureDeactivated,
  ListDeploymentsQuery,
  MissingRequest,
  MissingResponse,
  RepoRecord,
  SecretList,
  SetSecretsRequest,
  SetSecretsResponse
} from "./schemas.js"

const tags = ["cli"]

/** The most bytes of one upload (the server's `CORE_DEPLOY_MAX_UPLOAD_BYTES` may lower it). */
export const DEPLOY_MAX_UPLOAD_BYTES = 100 * 1024 * 1024

/**
 * The command-line backend at its gateway paths under `/api/v1/cli` (the gateway strips
 * the prefix; the service serves both, decision 0480). Every route is a platform's: its owner and
 * admins write, members read, another tenant gets 404.
 */
export const CliRoutes = defineRoutes({
  createRepo: {
    method: "POST",
    path: "/api/v1/cli/platforms",
    summary: "Create a platform's source repository (answers exists the second time)",
    description: "Creates the source repository of a platform (local git, or GitHub with `GITHUB_TOKEN`): `created` the first time, `exists` after, for the same `repoFullName`. The caller needs access to the platform.",
    auth: "caller",
    request: { body: CreateRepoRequest },
    responses: { 200: CreateRepoResponse, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  getRepo: {
    method: "GET",
    path: "/api/v1/cli/platforms/{platformId}/repo",
    summary: "Read a platform's source repository",
    description: "The platform's source repository: its provider, clone URL and default branch. 404 before one is created.",
    auth: "caller",
    request: { params: CliPlatformParams },
    responses: { 200: RepoRecord, 400: null, 401: null, 404: null },
    tags
  },
  activateFeature: {
    method: "POST",
    path: "/api/v1/cli/platforms/{platformId}/features/activate",
    summary: "Activate a feature on the platform's default entity (a registry activation and its job)",
    description: "`core features activate`: activates a feature on the platform's default entity, through the registry's activation and its provisioning job. An activation already pending or active is 409.",
    auth: "caller",
    request: { params: CliPlatformParams, body: CliActivateFeatureRequest },
    responses: { 200: FeatureActivated, 400: null, 401: null, 403: null, 404: null, 409: null },
    tags
  },
  deactivateFeature: {
    method: "POST",
    path: "/api/v1/cli/platforms/{platformId}/features/deactivate",
    summary: "Deactivate a feature on the platform's default entity",
    description: "`core features deactivate`: deactivates a feature on the platform's default entity.",
    auth: "caller",
    request: { params: CliPlatformParams, body: CliDeactivateFeatureRequest },
    responses: { 200: FeatureDeactivated, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  deploy: {
    method: "POST",
    path: "/api/v1/cli/platforms/{platformId}/deploy",
    summary: "Deploy: no body deploys the default branch; an application/gzip tarball uploads a built site",
    description: "The upload body is a gzip tarball of the built site, at most 100 MiB; `.core-manifest.json` at its root " +
      "may name files already on the server by hash ({ files: { path: sha256 } }). `idempotency-key` answers the first " +
      "deployment again for the same bytes (409 for other bytes); `x-core-deploy-branch` other than the default branch is a preview.",
    auth: "caller",
    bodyLimit: DEPLOY_MAX_UPLOAD_BYTES,
    request: { params: CliPlatformParams, headers: DeployHeaders, contentTypes: ["application/gzip"], optionalBody: true },
    responses: { 202: DeployAccepted, 400: null, 401: null, 403: null, 404: null, 409: null, 413: null, 415: null },
    tags
  },
  deployMissing: {
    method: "POST",
    path: "/api/v1/cli/platforms/{platformId}/deploy/missing",
    summary: "Which of these file hashes the server lacks (incremental uploads)",
    description: "The incremental upload's first step: the CLI sends the SHA-256 of every file of the built site and learns which the server lacks, then uploads only those in the tarball.",
    auth: "caller",
    bodyLimit: 2 * 1024 * 1024,
    request: { params: CliPlatformParams, body: MissingRequest },
    responses: { 200: MissingResponse, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  buildStatus: {
    method: "GET",
    path: "/api/v1/cli/platforms/{platformId}/build-status",
    summary: "The platform's latest deployment",
    description: "The platform's latest deployment with its status (`queued`, `building`, `deploying`, `success`, `failure`). 404 before the first deploy.",
    auth: "caller",
    request: { params: CliPlatformParams },
    responses: { 200: BuildStatus, 400: null, 401: null, 404: null },
    tags
  },
  listDeployments: {
    method: "GET",
    path: "/api/v1/cli/platforms/{platformId}/deployments",
    summary: "The platform's deployments, newest first",
    description: "The platform's deployments, newest first, with status, branch and times (epoch milliseconds).",
    auth: "caller",
    request: { params: CliPlatformParams, query: ListDeploymentsQuery },
    responses: { 200: DeploymentList, 400: null, 401: null, 404: null },
    tags
  },
  getDeployment: {
    method: "GET",
    path: "/api/v1/cli/platforms/{platformId}/deployments/{deploymentId}",
    summary: "One deployment's status",
    description: "One deployment's status and URL: what `core deploy` polls until it ends in `success` or `failure`.",
    auth: "caller",
    request: { params: CliDeploymentParams },
    responses: { 200: DeploymentRecord, 400: null, 401: null, 404: null },
    tags
  },
  rollback: {
    method: "POST",
    path: "/api/v1/cli/platforms/{platformId}/deployments/{deploymentId}/rollback",
    summary: "Make an earlier successful deployment live again at once",
    description: "Makes an earlier successful deployment live again at once, without a new build or upload; a deployment that did not succeed is 409.",
    auth: "caller",
    request: { params: CliDeploymentParams },
    responses: { 200: DeploymentRecord, 400: null, 401: null, 403: null, 404: null, 409: null },
    tags
  },
  setSecrets: {
    method: "POST",
    path: "/api/v1/cli/platforms/{platformId}/secrets",
    summary: "Set secrets of the platform's worker (encrypted in the registry, set at the edge)",
    description: "Sets secrets of the platform's worker (`core secrets set`): stored encrypted in the registry and set at the edge; values are never returned.",
    auth: "caller",
    request: { params: CliPlatformParams, body: SetSecretsRequest },
    responses: { 200: SetSecretsResponse, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  listSecrets: {
    method: "GET",
    path: "/api/v1/cli/platforms/{platformId}/secrets",
    summary: "The names of the platform's secrets and when each was last set",
    description: "The names of the platform's secrets and when each was last set, never their values (`core secrets list`).",
    auth: "caller",
    request: { params: CliPlatformParams },
    responses: { 200: SecretList, 400: null, 401: null, 404: null },
    tags
  }
})
