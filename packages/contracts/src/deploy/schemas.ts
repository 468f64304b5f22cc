import { z } from "zod"
import { BoundedId, LIST_MAX_ITEMS, NAME_MAX_LENGTH } from "../Bounds.js"
import { DeploymentId, PlatformId } from "../Ids.js"
import { cursorPage, cursorQuery } from "../Pagination.js"

/** The path of one platform under the command-line backend. */
export const CliPlatformParams = z.object({ platformId: PlatformId })

/** The path of one deployment of a platform. */
export const CliDeploymentParams = z.object({ platformId: PlatformId, deploymentId: DeploymentId })

/** `POST /platforms`: the platform's source repository is created once. */
export const CreateRepoRequest = z.object({
  platformId: PlatformId,
  displayName: z.string().min(1).max(NAME_MAX_LENGTH),
  planTier: z.string().min(1).max(32)
})
export type CreateRepoRequest = z.input<typeof CreateRepoRequest>

/** `created` the first time, `exists` after (the same `repoFullName`). */
export const CreateRepoResponse = z.object({
  platformId: z.string(),
  repoFullName: z.string(),
  status: z.enum(["created", "exists"])
})
export type CreateRepoResponse = z.infer<typeof CreateRepoResponse>

/** The repo record; `createdAt` in epoch milliseconds. */
export const RepoRecord = z.object({
  platformId: z.string(),
  repoFullName: z.string(),
  defaultBranch: z.string(),
  edgePagesProjectName: z.string(),
  createdAt: z.number(),
  /** Where `git clone` reaches it (a `file://` URL on the local source host). */
  cloneUrl: z.string()
})
export type RepoRecord = z.infer<typeof RepoRecord>

/** A feature id or version: 1 to 64 characters of letters, digits, `.`, `_`, `-`. */
const FeatureWord = z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, { error: "Use letters, digits, '.', '_' and '-'" })

/** `POST .../features/activate`. */
export const CliActivateFeatureRequest = z.object({
  featureId: FeatureWord,
  version: FeatureWord,
  config: z.record(z.string().max(NAME_MAX_LENGTH), z.unknown()).default({})
})
export type CliActivateFeatureRequest = z.input<typeof CliActivateFeatureRequest>

/** `POST .../features/deactivate`. */
export const CliDeactivateFeatureRequest = z.object({ featureId: FeatureWord })
export type CliDeactivateFeatureRequest = z.input<typeof CliDeactivateFeatureRequest>

export const FeatureActivated = z.object({
  status: z.literal("activated"),
  featureId: z.string(),
  version: z.string(),
  provisionJobId: z.string().nullable()
})
export type FeatureActivated = z.infer<typeof FeatureActivated>

export const FeatureDeactivated = z.object({ status: z.literal("deactivated"), featureId: z.string() })
export type FeatureDeactivated = z.infer<typeof FeatureDeactivated>

/** Deployment statuses (docs/deploy.md). */
export const DeploymentStatus = z.enum(["queued", "building", "deploying", "success", "failure"])
export type DeploymentStatus = z.infer<typeof DeploymentStatus>

/** The upload form's answer. */
export const DeployAccepted = z.object({
  deploymentId: z.string(),
  status: DeploymentStatus,
  projectName: z.string(),
  url: z.string().optional()
})
export type DeployAccepted = z.infer<typeof DeployAccepted>

/** The deployment status record, plus its branch and whether it is live now. */
export const DeploymentRecord = z.object({
  deploymentId: z.string(),
  status: DeploymentStatus,
  edgeDeploymentId: z.string().nullable(),
  url: z.string().nullable(),
  errorMessage: z.string().nullable(),
  startedAt: z.number().nullable(),
  completedAt: z.number().nullable(),
  branch: z.string(),
  environment: z.enum(["production", "preview"]),
  createdAt: z.number(),
  live: z.boolean()
})
export type DeploymentRecord = z.infer<typeof DeploymentRecord>

/** `GET .../deployments`: newest first. */
export const ListDeploymentsQuery = cursorQuery()
export const DeploymentList = cursorPage(DeploymentRecord)
export type DeploymentList = z.infer<typeof DeploymentList>

/** `GET .../build-status`. */
export const BuildStatus = z.object({
  platformId: z.string(),
  edgePagesProjectName: z.string(),
  latestDeployment: z.object({ id: z.string(), status: z.string(), url: z.string(), createdOn: z.string() }).nullable()
})
export type BuildStatus = z.infer<typeof BuildStatus>

/** A SHA-256 in lower-case hex. */
export const FileHash = z.string().regex(/^[0-9a-f]{64}$/, { error: "A SHA-256 in lower-case hexadecimal" })

/** At most this many hashes in one `deploy/missing` request (the file limit of an archive). */
export const MISSING_MAX_HASHES = 20_000

/** `POST .../deploy/missing`: which of these file hashes the server lacks. */
export const MissingRequest = z.object({ hashes: z.array(FileHash).max(MISSING_MAX_HASHES) })
export type MissingRequest = z.input<typeof MissingRequest>
export const MissingResponse = z.object({ missing: z.array(z.string()) })
export type MissingResponse = z.infer<typeof MissingResponse>

/** A secret's name. */
export const SecretName = z.string().min(1).max(128).regex(/^[A-Z_][A-Z0-9_]*$/, { error: "Secret names match ^[A-Z_][A-Z0-9_]*$" })

/** `POST .../secrets`: name → value. */
export const SetSecretsRequest = z.object({
  secrets: z.record(SecretName, z.string().max(65_536)).refine((value) => Object.keys(value).length >= 1 && Object.keys(value).length <= LIST_MAX_ITEMS, {
    message: `From 1 to ${LIST_MAX_ITEMS} secrets`
  })
})
export type SetSecretsRequest = z.input<typeof SetSecretsRequest>
export const SetSecretsResponse = z.object({ platformId: z.string(), results: z.record(z.string(), z.string()) })
export type SetSecretsResponse = z.infer<typeof SetSecretsResponse>

/** `GET .../secrets`: names and when each was last set (never a value). */
export const SecretList = z.object({ data: z.array(z.object({ name: z.string(), lastSetAt: z.number() })) })
export type SecretList = z.infer<typeof SecretList>

/** The upload form's optional headers. */
export const DeployHeaders = z.object({
  "idempotency-key": BoundedId.optional(),
  "x-core-deploy-branch": z.string().min(1).max(63).regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, {
    error: "A branch is a DNS label: lower-case letters, digits and dashes"
  }).optional()
})
