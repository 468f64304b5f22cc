import { z } from "zod"
import { ID_MAX_LENGTH, Metadata } from "../Bounds.js"
import { ActivationId, EntityId, PlatformId } from "../Ids.js"
import { cursorParam, limitParam, page } from "../Pagination.js"
import { defineRoutes } from "../Routes.js"

/** An environment a feature is activated in (`dev`, `stg`, `prod`). */
export const Environment = z.enum(["dev", "stg", "prod"])
export type Environment = z.infer<typeof Environment>

/**
 * An activation's status (docs/registry.md): `pending` until its provisioning job completes, then
 * `active` or `failed`; `deactivating` until the deactivation job completes, then `deactivated`.
 */
export const FeatureActivationStatus = z.enum(["pending", "active", "failed", "deactivating", "deactivated"])
export type FeatureActivationStatus = z.infer<typeof FeatureActivationStatus>

/** A feature id or version: free-form text (no feature catalogue), at least one character. */
const FeatureText = z.string().min(1).max(ID_MAX_LENGTH)

/** A feature activation as the registry answers it (FeatureActivationRecord). */
export const FeatureActivationRecord = z.object({
  id: z.string(),
  platformId: z.string(),
  entityId: z.string(),
  featureId: z.string(),
  featureVersion: z.string(),
  environment: Environment,
  status: FeatureActivationStatus,
  activatedAt: z.string().nullable(),
  deactivatedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string()
})
export type FeatureActivationRecord = z.infer<typeof FeatureActivationRecord>

/** A page of activations. */
export const FeatureActivationPage = page(FeatureActivationRecord)

/**
 * `POST .../features/activate` (`featureId`, `version`, `environment`). `config` is
 * optional (decision 0251): it may name the manifest's `package` and `serviceUrl`.
 */
export const ActivateFeatureRequest = z.object({
  featureId: FeatureText,
  version: FeatureText,
  environment: Environment,
  config: Metadata.optional()
})
export type ActivateFeatureRequest = z.input<typeof ActivateFeatureRequest>

/** What activation answers: 202 with a new `pending` activation, 200 with the existing one. */
export const ActivateFeatureResponse = z.object({
  activationId: z.string(),
  featureId: z.string(),
  status: FeatureActivationStatus,
  provisionJobId: z.string(),
  estimatedDurationSeconds: z.number()
})
export type ActivateFeatureResponse = z.infer<typeof ActivateFeatureResponse>

/** `POST .../features/deactivate`. */
export const DeactivateFeatureRequest = z.object({ featureId: FeatureText, environment: Environment })
export type DeactivateFeatureRequest = z.input<typeof DeactivateFeatureRequest>

/** What deactivation answers: the feature and its activation's status (`deactivating`, or `deactivated`). */
export const DeactivateFeatureResponse = z.object({ featureId: z.string(), status: FeatureActivationStatus })
export type DeactivateFeatureResponse = z.infer<typeof DeactivateFeatureResponse>

/** The path of an entity's features. */
export const EntityFeaturesParams = z.object({ platformId: PlatformId, entityId: EntityId })

/** The path of one activation. */
export const FeatureActivationParams = z.object({ platformId: PlatformId, entityId: EntityId, activationId: ActivationId })

/** `GET .../features`: `cursor`, `limit`, and the filters `environment`, `status`, `featureId`. */
export const ListFeaturesQuery = z.object({
  cursor: cursorParam,
  limit: limitParam(),
  environment: Environment.optional(),
  status: FeatureActivationStatus.optional(),
  featureId: FeatureText.optional()
})
export type ListFeaturesQuery = z.output<typeof ListFeaturesQuery>

/** `GET .../manifest`: `environment`, default `prod`. */
export const ManifestQuery = z.object({ environment: Environment.default("prod") })

/** An entity's manifest: its active features in one environment. */
export const Manifest = z.object({
  platformId: z.string(),
  entityId: z.string(),
  environment: Environment,
  features: z.array(z.object({
    id: z.string(),
    version: z.string(),
    package: z.string(),
    serviceUrl: z.string(),
    status: FeatureActivationStatus
  })),
  generatedAt: z.string()
})
export type Manifest = z.infer<typeof Manifest>

const features = "/api/v1/platforms/{platformId}/entities/{entityId}/features"
const oneEntity = { 400: null, 401: null, 403: null, 404: null } as const
const read = { auth: "caller", permission: "features:read", tenant: "organization", tags: ["registry: features"] } as const
const write = { auth: "caller", permission: "features:manage", tenant: "organization", tags: ["registry: features"] } as const

/**
 * An entity's feature activations and its manifest. Activation enqueues a
 * provisioning job in the same transaction; the job moves the activation's status.
 */
export const FeatureRoutes = defineRoutes({
  listFeatures: {
    method: "GET",
    path: features,
    summary: "List an entity's feature activations (filters environment, status, featureId)",
    description: "The feature activations of an entity, filtered by `environment`, `status` or `featureId`: each with its feature version, environment and status (`pending`, `active`, `deactivating`, `deactivated`, `failed`). Needs `features:read`.",
    ...read,
    request: { params: EntityFeaturesParams, query: ListFeaturesQuery },
    responses: { 200: FeatureActivationPage, ...oneEntity }
  },
  activateFeature: {
    method: "POST",
    path: `${features}/activate`,
    summary: "Activate a feature: 202 with a new pending activation and its job, 200 with the one already active or pending",
    description: "Activates a feature version for an entity in an environment: a new activation in `pending` with the provisioning job that moves it (202), or the activation already active or pending (200), so repeating the call is safe. Needs `features:manage`.",
    ...write,
    request: { params: EntityFeaturesParams, body: ActivateFeatureRequest },
    responses: { 200: ActivateFeatureResponse, 202: ActivateFeatureResponse, ...oneEntity }
  },
  deactivateFeature: {
    method: "POST",
    path: `${features}/deactivate`,
    summary: "Deactivate a feature in an environment (its activation becomes deactivating, then deactivated)",
    description: "Deactivates a feature in an environment: its activation becomes `deactivating` while its job removes what it made, then `deactivated`. Needs `features:manage`.",
    ...write,
    request: { params: EntityFeaturesParams, body: DeactivateFeatureRequest },
    responses: { 200: DeactivateFeatureResponse, ...oneEntity }
  },
  getFeature: {
    method: "GET",
    path: `${features}/{activationId}`,
    summary: "Read a feature activation",
    description: "One feature activation by id (`act_…`), with its status and job. Another tenant's answers 404.",
    ...read,
    request: { params: FeatureActivationParams },
    responses: { 200: FeatureActivationRecord, ...oneEntity }
  },
  getManifest: {
    method: "GET",
    path: "/api/v1/platforms/{platformId}/entities/{entityId}/manifest",
    summary: "An entity's manifest: its active features in an environment (default prod)",
    description: "The entity's manifest: its features in an environment (default `prod`), each with its version, package, service URL and status, and when the manifest was generated. What a deployed worker reads to know what is on.",
    ...read,
    request: { params: EntityFeaturesParams, query: ManifestQuery },
    responses: { 200: Manifest, ...oneEntity }
  }
})
