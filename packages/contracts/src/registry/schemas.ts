import { z } from "zod"
import { NAME_MAX_LENGTH, SLUG_MAX_LENGTH } from "../Bounds.js"
import { PlatformId, UserId } from "../Ids.js"

/** Tiers a platform can be on (seed 002: `starter`, `growth`, `scale`; DESIGN §5 adds identity's `free`). */
export const PlatformTier = z.enum(["free", "starter", "growth", "scale"])
export type PlatformTier = z.infer<typeof PlatformTier>

/** Lifecycle states of a platform (DESIGN §7). */
export const PlatformStatus = z.enum(["active", "suspended", "cancelled", "deleted"])
export type PlatformStatus = z.infer<typeof PlatformStatus>

/** A platform or entity slug: lower-case letters, digits and dashes (seed 002, Limits). */
export const Slug = z.string().min(1).max(SLUG_MAX_LENGTH).regex(/^[a-z0-9-]+$/, { error: "Use lower-case letters, digits and dashes" })

/**
 * A platform as the registry answers it (seed 002, PlatformRecord). Fields the registry does not
 * keep yet (edge account, repository, payment customer, cancellation, suspension, trial) are `null`
 * until the registry's lifecycle arrives.
 */
export const PlatformRecord = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  status: PlatformStatus,
  tier: PlatformTier,
  organizationId: z.string().nullable(),
  ownerUserId: z.string().nullable(),
  edgeAccountId: z.string().nullable(),
  repoName: z.string().nullable(),
  paymentCustomerId: z.string().nullable(),
  cancelledAt: z.string().nullable(),
  cancellationReason: z.string().nullable(),
  suspendedAt: z.string().nullable(),
  suspensionReason: z.string().nullable(),
  trialEndsAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  deletedAt: z.string().nullable()
})
export type PlatformRecord = z.infer<typeof PlatformRecord>

/** `POST /api/v1/platforms`: the seed's unnamed optional string is `ownerUserId` (DESIGN §7). */
export const CreatePlatformRequest = z.object({
  name: z.string().min(1).max(NAME_MAX_LENGTH),
  slug: Slug,
  tier: PlatformTier.default("starter"),
  ownerUserId: UserId.optional()
})
export type CreatePlatformRequest = z.input<typeof CreatePlatformRequest>

/** The path of one platform. */
export const PlatformParams = z.object({ platformId: PlatformId })
