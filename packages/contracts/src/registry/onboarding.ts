import { z } from "zod"
import { EmailAddress, ID_MAX_LENGTH, NAME_MAX_LENGTH } from "../Bounds.js"
import { JobStatus, JobStep } from "../provisioning/schemas.js"
import { naming } from "../PathRecords.js"
import { defineRoutes } from "../Routes.js"
import { PlatformTier, Slug } from "./schemas.js"

/**
 * An onboarding flow's status: `pending` until provisioning's `onboard` job starts, `running`
 * while it works, then `completed` or `failed` (decision 0236).
 */
export const OnboardingStatus = z.enum(["pending", "running", "completed", "failed"])
export type OnboardingStatus = z.infer<typeof OnboardingStatus>

/**
 * An onboarding flow's id: the `onb_…` id the registry gives a flow it starts, or the id a client
 * chose when it started one with `POST /api/v1/provision/onboard` (a UUID, `acme-2026-01`): 1 to
 * 128 letters, digits, `.`, `_`, `:` and `-`, starting with a letter or digit (decision 0575).
 */
export const OnboardingReference = z.string().min(1).max(ID_MAX_LENGTH).regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, {
  error: "Use 1 to 128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit"
})

/**
 * `POST /api/v1/onboarding`: a new platform (its name, slug and tier), the stack template to start
 * it from (a template name of the catalogue; its latest published version), and the address its
 * bills go to. `userId` is the user it is for: the platform is the platform of a new organization
 * of theirs, of the platform's name and slug, with them as its owner (decision 0576). Without one
 * it belongs to no organization, the operators' (`ownerUserId` the operator asking).
 */
export const StartOnboardingRequest = z.object({
  platformName: z.string().trim().min(1).max(NAME_MAX_LENGTH),
  slug: Slug,
  stackTemplateId: z.string().min(1).max(64).regex(/^[a-z0-9-]+$/, { error: "Must be a stack template name (a-z, 0-9, -)" }).nullable().optional(),
  tier: PlatformTier.default("starter"),
  billingEmail: EmailAddress.optional(),
  userId: z.string().min(1).max(ID_MAX_LENGTH).optional()
})
export type StartOnboardingRequest = z.input<typeof StartOnboardingRequest>

/** An onboarding flow with its job's steps and progress. */
export const OnboardingRecord = z.object({
  id: z.string(),
  platformId: z.string(),
  /** The organization the platform belongs to: its user's (decision 0576); `null`: the operators'. */
  organizationId: z.string().nullable(),
  platformName: z.string(),
  slug: z.string(),
  stackTemplateId: z.string().nullable(),
  tier: PlatformTier,
  billingEmail: z.string().nullable(),
  userId: z.string().nullable(),
  status: OnboardingStatus,
  provisionJobId: z.string(),
  jobStatus: JobStatus.nullable(),
  progress: z.number().min(0).max(1),
  steps: z.array(JobStep),
  result: z.record(z.string(), z.unknown()).nullable(),
  error: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  completedAt: z.string().nullable()
})
export type OnboardingRecord = z.infer<typeof OnboardingRecord>

/** The path of one flow. */
export const OnboardingParams = z.object({ onboardingId: naming(OnboardingReference, "Onboarding flow not found") })

const tags = ["registry: onboarding"]

/**
 * Onboarding (docs/registry.md): start a flow that creates a platform and drives provisioning's `onboard`
 * job; read its steps and progress. Served by the registry at `/api/v1/onboarding`.
 */
export const OnboardingRoutes = defineRoutes({
  startOnboarding: {
    method: "POST",
    path: "/api/v1/onboarding",
    summary: "Start onboarding a platform: 202 with the flow (its platform created, its onboard job queued); 409 for a slug taken",
    description: "Starts onboarding a new customer: creates its platform and queues the `onboard` job that makes its organization, default entity, stack and subscription, answering the flow (202) to follow with GET. For operators and the static service key; a slug taken is 409.",
    auth: "operator",
    request: { body: StartOnboardingRequest },
    responses: { 202: { schema: OnboardingRecord, headers: { location: "The flow's address" } }, 400: null, 401: null, 403: null, 404: null, 409: null },
    tags
  },
  getOnboarding: {
    method: "GET",
    path: "/api/v1/onboarding/{onboardingId}",
    summary: "Read an onboarding flow: its status, steps and progress (another tenant's flow: 404)",
    description: "One onboarding flow: its status, the steps done and to come, progress and the platform it made. Another tenant's flow answers 404.",
    auth: "caller",
    permission: "platforms:read",
    tenant: "organization",
    request: { params: OnboardingParams },
    responses: { 200: OnboardingRecord, 400: null, 401: null, 403: null, 404: null },
    tags
  }
})
