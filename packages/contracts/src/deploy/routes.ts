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
 * The command-line backend (seed 002) at its gateway paths under `/api/v1/cli` (the gateway strips
 * the prefix; the service serves both, decision 0480). Every route is a platform's: its owner and
 * admins write, members read, another tenant gets 404.
 */
export const CliRoutes = defineRoutes({
  createRepo: {
    method: "POST",
    path: "/api/v1/cli/platforms",
    summary: "Create a platform's source repository (answers exists the second time)",
    auth: "caller",
    request: { body: CreateRepoRequest },
    responses: { 200: CreateRepoResponse, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  getRepo: {
    method: "GET",
    path: "/api/v1/cli/platforms/{platformId}/repo",
    summary: "Read a platform's source repository",
    auth: "caller",
    request: { params: CliPlatformParams },
    responses: { 200: RepoRecord, 400: null, 401: null, 404: null },
    tags
  },
  activateFeature: {
    method: "POST",
    path: "/api/v1/cli/platforms/{platformId}/features/activate",
    summary: "Activate a feature on the platform's default entity (a registry activation and its job)",
    auth: "caller",
    request: { params: CliPlatformParams, body: CliActivateFeatureRequest },
    responses: { 200: FeatureActivated, 400: null, 401: null, 403: null, 404: null, 409: null },
    tags
  },
  deactivateFeature: {
    method: "POST",
    path: "/api/v1/cli/platforms/{platformId}/features/deactivate",
    summary: "Deactivate a feature on the platform's default entity",
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
    auth: "caller",
    request: { params: CliPlatformParams },
    responses: { 200: BuildStatus, 400: null, 401: null, 404: null },
    tags
  },
  listDeployments: {
    method: "GET",
    path: "/api/v1/cli/platforms/{platformId}/deployments",
    summary: "The platform's deployments, newest first",
    auth: "caller",
    request: { params: CliPlatformParams, query: ListDeploymentsQuery },
    responses: { 200: DeploymentList, 400: null, 401: null, 404: null },
    tags
  },
  getDeployment: {
    method: "GET",
    path: "/api/v1/cli/platforms/{platformId}/deployments/{deploymentId}",
    summary: "One deployment's status",
    auth: "caller",
    request: { params: CliDeploymentParams },
    responses: { 200: DeploymentRecord, 400: null, 401: null, 404: null },
    tags
  },
  rollback: {
    method: "POST",
    path: "/api/v1/cli/platforms/{platformId}/deployments/{deploymentId}/rollback",
    summary: "Make an earlier successful deployment live again at once",
    auth: "caller",
    request: { params: CliDeploymentParams },
    responses: { 200: DeploymentRecord, 400: null, 401: null, 403: null, 404: null, 409: null },
    tags
  },
  setSecrets: {
    method: "POST",
    path: "/api/v1/cli/platforms/{platformId}/secrets",
    summary: "Set secrets of the platform's worker (encrypted in the registry, set at the edge)",
    auth: "caller",
    request: { params: CliPlatformParams, body: SetSecretsRequest },
    responses: { 200: SetSecretsResponse, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  listSecrets: {
    method: "GET",
    path: "/api/v1/cli/platforms/{platformId}/secrets",
    summary: "The names of the platform's secrets and when each was last set",
    auth: "caller",
    request: { params: CliPlatformParams },
    responses: { 200: SecretList, 400: null, 401: null, 404: null },
    tags
  }
})
