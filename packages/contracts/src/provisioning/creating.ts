import { z } from "zod"
import { BoundedId, EmailAddress, NAME_MAX_LENGTH } from "../Bounds.js"
import { defineRoutes } from "../Routes.js"
import { OnboardingReference } from "../registry/onboarding.js"
import { PlatformTier, Slug } from "../registry/schemas.js"

/** An environment of provisioning's job fields; `prod` where it is optional. */
export const ProvisionEnvironment = z.enum(["dev", "stg", "prod"])
export type ProvisionEnvironment = z.infer<typeof ProvisionEnvironment>

/** The longest `Idempotency-Key` (decision 0287). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255

/** An `Idempotency-Key` header: 1 to 255 visible ASCII characters (a UUID, typically). */
export const IdempotencyKey = z.string().min(1).max(IDEMPOTENCY_KEY_MAX_LENGTH).regex(/^[\x21-\x7e]+$/, {
  error: "Use 1 to 255 visible ASCII characters"
})

/** The headers every job-creating route reads. */
export const JobCreationHeaders = z.object({ "idempotency-key": IdempotencyKey.optional() })

const optionalEnvironment = ProvisionEnvironment.default("prod")

/** `POST /api/v1/provision/platform`. */
export const ProvisionPlatformRequest = z.object({
  platformId: BoundedId,
  planTier: PlatformTier,
  billingEmail: EmailAddress,
  defaultEntityId: BoundedId.optional(),
  environment: optionalEnvironment
})
export type ProvisionPlatformRequest = z.input<typeof ProvisionPlatformRequest>

/** `POST /api/v1/provision/feature/activate`: every field required. */
export const ProvisionFeatureActivateRequest = z.object({
  platformId: BoundedId,
  entityId: BoundedId,
  featureId: BoundedId,
  featureVersion: BoundedId,
  environment: ProvisionEnvironment
})
export type ProvisionFeatureActivateRequest = z.input<typeof ProvisionFeatureActivateRequest>

/** `POST /api/v1/provision/feature/deactivate`. */
export const ProvisionFeatureDeactivateRequest = z.object({
  platformId: BoundedId,
  entityId: BoundedId,
  featureId: BoundedId,
  environment: ProvisionEnvironment,
  deleteData: z.boolean().default(false)
})
export type ProvisionFeatureDeactivateRequest = z.input<typeof ProvisionFeatureDeactivateRequest>

/** `POST /api/v1/provision/stack/activate`. */
export const ProvisionStackActivateRequest = z.object({
  platformId: BoundedId,
  stackId: BoundedId,
  stackVersion: BoundedId,
  entityId: BoundedId.optional(),
  environment: optionalEnvironment
})
export type ProvisionStackActivateRequest = z.input<typeof ProvisionStackActivateRequest>

/** `POST /api/v1/provision/stack/deactivate`. */
export const ProvisionStackDeactivateRequest = z.object({
  platformId: BoundedId,
  stackInstanceId: BoundedId,
  environment: optionalEnvironment,
  deleteData: z.boolean().default(false)
})
export type ProvisionStackDeactivateRequest = z.input<typeof ProvisionStackDeactivateRequest>

/**
 * `POST /api/v1/provision/onboard`: everything an onboarding needs. `onboardingId` is the flow's id
 * and its idempotency key: a new one starts the flow, the same one with the same body answers the
 * same job, with another body 409 (decision 0575).
 */
export const ProvisionOnboardRequest = z.object({
  onboardingId: OnboardingReference,
  platformName: z.string().trim().min(1).max(NAME_MAX_LENGTH),
  slug: Slug,
  userId: BoundedId,
  stackTemplateId: BoundedId.nullable().optional(),
  tier: PlatformTier.default("starter"),
  billingEmail: EmailAddress.optional()
})
export type ProvisionOnboardRequest = z.input<typeof ProvisionOnboardRequest>

/** An app's name: a DNS label of lower-case letters, digits and dashes. */
export const AppName = z.string().min(2).max(63).regex(/^[a-z][a-z0-9-]*[a-z0-9]$/, {
  error: "Must match ^[a-z][a-z0-9-]*[a-z0-9]$"
})

/** `POST /api/v1/provision/app/create`. */
export const ProvisionAppCreateRequest = z.object({
  platformId: BoundedId,
  stackId: BoundedId,
  appName: AppName,
  appType: z.enum(["app", "svc", "fullstack"]),
  withDatabase: z.boolean().default(false)
})
export type ProvisionAppCreateRequest = z.input<typeof ProvisionAppCreateRequest>

/** A host name: dot-separated DNS labels, at most 253 characters, kept lower-cased. */
export const Hostname = z.string().max(253).regex(/^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,63}$/, {
  error: "Must be a host name such as shop.example.com"
}).transform((value) => value.toLowerCase())

/** `POST /api/v1/provision/domain/add`. */
export const ProvisionDomainAddRequest = z.object({
  platformId: BoundedId,
  customHostname: Hostname,
  targetDnsRecordId: BoundedId
})
export type ProvisionDomainAddRequest = z.input<typeof ProvisionDomainAddRequest>

/** `POST /api/v1/provision/platform/deprovision`. */
export const ProvisionPlatformDeprovisionRequest = z.object({
  platformId: BoundedId,
  environment: optionalEnvironment
})
export type ProvisionPlatformDeprovisionRequest = z.input<typeof ProvisionPlatformDeprovisionRequest>

/** `POST /api/v1/provision/auth/upgrade` (operators). */
export const AuthUpgradeRequest = z.object({ platformId: BoundedId })
export type AuthUpgradeRequest = z.input<typeof AuthUpgradeRequest>

/** What every job-creating route answers; the same `Idempotency-Key` answers it again. */
export const JobCreated = z.object({ jobId: z.string(), status: z.literal("QUEUED") })
export type JobCreated = z.infer<typeof JobCreated>

/** What `POST /api/v1/provision/auth/upgrade` answers. */
export const AuthUpgradeResponse = z.object({ jobId: z.string(), platformId: z.string() })
export type AuthUpgradeResponse = z.infer<typeof AuthUpgradeResponse>

const tags = ["provisioning: jobs"]

const creating = <B extends z.ZodType>(path: string, summary: string, body: B) => ({
  method: "POST" as const,
  path,
  summary,
  description: "Answers the job's id. An `Idempotency-Key` header makes the call safe to repeat: the same key " +
    "answers the first job; the same key with another body is 409 CONFLICT (decision 0287).",
  auth: "caller" as const,
  permission: "platforms:manage" as const,
  tenant: "organization" as const,
  request: { body, headers: JobCreationHeaders },
  responses: { 202: JobCreated, 400: null, 401: null, 403: null, 404: null, 409: null },
  tags
})

/**
 * The job-creating routes (docs/provisioning.md): a platform's owner and admins for their own platform (another
 * tenant: 404), operators and the service key for every platform. Each enqueues the job of its
 * type with the parsed body (and `platformId`) as its payload.
 */
export const JobCreationRoutes = defineRoutes({
  provisionPlatform: creating("/api/v1/provision/platform", "Provision a platform's edge resources (platform.provision)", ProvisionPlatformRequest),
  activateFeatureJob: creating(
    "/api/v1/provision/feature/activate",
    "Activate a feature for an entity: the registry's activation is made pending and moved by its job (feature.activate)",
    ProvisionFeatureActivateRequest
  ),
  deactivateFeatureJob: creating(
    "/api/v1/provision/feature/deactivate",
    "Deactivate a feature for an entity (feature.deactivate)",
    ProvisionFeatureDeactivateRequest
  ),
  activateStack: creating("/api/v1/provision/stack/activate", "Create every resource of a stack version (stack.activate)", ProvisionStackActivateRequest),
  deactivateStack: creating("/api/v1/provision/stack/deactivate", "Remove a stack instance's resources (stack.deactivate)", ProvisionStackDeactivateRequest),
  onboard: {
    ...creating("/api/v1/provision/onboard", "Onboard a platform: start the flow of this onboardingId, or answer its job (onboard)", ProvisionOnboardRequest),
    description: "Starts the onboarding flow `onboardingId` (operators and the service key): a new organization of `userId`, " +
      "owned by them, with the platform (`platformName`, `slug`, `tier`), and the `onboard` job that builds `stackTemplateId`. " +
      "`onboardingId` is the idempotency key: the same id and body answer the same job (to whoever may manage its platform); " +
      "the same id with another body is 409 CONFLICT naming the fields that differ (decision 0575). " +
      "The flow is read at `GET /api/v1/onboarding/{onboardingId}`."
  },
  createApp: creating("/api/v1/provision/app/create", "Create an app on the edge (app.create)", ProvisionAppCreateRequest),
  addDomain: creating("/api/v1/provision/domain/add", "Add a custom hostname (domain.add)", ProvisionDomainAddRequest),
  deprovisionPlatform: creating(
    "/api/v1/provision/platform/deprovision",
    "Remove a platform's edge resources (platform.deprovision)",
    ProvisionPlatformDeprovisionRequest
  ),
  upgradeAuth: {
    method: "POST",
    path: "/api/v1/provision/auth/upgrade",
    summary: "Upgrade a platform's authentication worker (auth.upgrade; operators)",
    description: "Operators and the service key. An `Idempotency-Key` header answers the first job again.",
    auth: "operator",
    request: { body: AuthUpgradeRequest, headers: JobCreationHeaders },
    responses: { 202: AuthUpgradeResponse, 400: null, 401: null, 403: null, 404: null, 409: null },
    tags
  }
})
