import { z } from "zod"
import { NAME_MAX_LENGTH, SLUG_MAX_LENGTH, TEXT_MAX_LENGTH } from "../Bounds.js"
import { EntityId, PlatformId, UserId } from "../Ids.js"
import { cursorParam, limitParam, page } from "../Pagination.js"

/** Tiers a platform can be on (`starter`, `growth`, `scale`; identity adds `free`, docs/identity/organizations.md). */
export const PlatformTier = z.enum(["free", "starter", "growth", "scale"])
export type PlatformTier = z.infer<typeof PlatformTier>

/** Lifecycle states of a platform (docs/registry.md). */
export const PlatformStatus = z.enum(["active", "suspended", "cancelled", "deleted"])
export type PlatformStatus = z.infer<typeof PlatformStatus>

/** A platform or entity slug: lower-case letters, digits and dashes. */
export const Slug = z.string().min(1).max(SLUG_MAX_LENGTH).regex(/^[a-z0-9-]+$/, { error: "Use lower-case letters, digits and dashes" })

/**
 * A platform as the registry answers it (PlatformRecord). Timestamps are ISO 8601 text;
 * fields not set (no suspension, no cancellation, not deleted, no edge account yet) are `null`.
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

/** `POST /api/v1/platforms`: the seed's unnamed optional string is `ownerUserId` (docs/registry.md). */
export const CreatePlatformRequest = z.object({
  name: z.string().min(1).max(NAME_MAX_LENGTH),
  slug: Slug,
  tier: PlatformTier.default("starter"),
  ownerUserId: UserId.optional()
})
export type CreatePlatformRequest = z.input<typeof CreatePlatformRequest>

/** The path of one platform. */
export const PlatformParams = z.object({ platformId: PlatformId })

/**
 * `GET /api/v1/platforms`: `cursor`, `limit` (default 25, 1 to 100) and the filters `status`, `tier`
 * and `slug`. Soft-deleted platforms are listed only when `status=deleted` is asked for.
 */
export const ListPlatformsQuery = z.object({
  cursor: cursorParam,
  limit: limitParam(),
  status: PlatformStatus.optional(),
  tier: PlatformTier.optional(),
  slug: Slug.optional()
})
export type ListPlatformsQuery = z.output<typeof ListPlatformsQuery>

/** A page of platforms. */
export const PlatformPage = page(PlatformRecord)
export type PlatformPage = z.infer<typeof PlatformPage>

/** The statuses `PATCH` may set (`active`, `suspended`, `deleted`). */
export const SettablePlatformStatus = z.enum(["active", "suspended", "deleted"])

/** `PATCH /api/v1/platforms/{platformId}`: the seed's unnamed string is `name` (docs/registry.md). */
export const UpdatePlatformRequest = z.object({
  name: z.string().min(1).max(NAME_MAX_LENGTH).optional(),
  tier: PlatformTier.optional(),
  status: SettablePlatformStatus.optional()
})
export type UpdatePlatformRequest = z.input<typeof UpdatePlatformRequest>

/** The body of suspend, restore, cancel and hard delete: an optional `reason`. */
export const LifecycleActionRequest = z.object({ reason: z.string().min(1).max(TEXT_MAX_LENGTH).optional() })
export type LifecycleActionRequest = z.input<typeof LifecycleActionRequest>

/** Who triggered a lifecycle change. */
export const TriggerType = z.enum(["user", "operator", "service", "system"])
export type TriggerType = z.infer<typeof TriggerType>

/** One change of a platform's status (LifecycleEvent). */
export const LifecycleEvent = z.object({
  id: z.string(),
  platformId: z.string(),
  fromStatus: PlatformStatus.nullable(),
  toStatus: PlatformStatus,
  triggeredBy: z.string(),
  triggerType: TriggerType,
  reason: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  createdAt: z.string()
})
export type LifecycleEvent = z.infer<typeof LifecycleEvent>

/** `GET /api/v1/platforms/{platformId}/lifecycle`: `cursor` and `limit`, oldest event first. */
export const LifecycleQuery = z.object({ cursor: cursorParam, limit: limitParam() })

/** A page of lifecycle events. */
export const LifecyclePage = page(LifecycleEvent)
export type LifecyclePage = z.infer<typeof LifecyclePage>

/** `{ success: true }`, the answer of a soft delete. */
export const SuccessResponse = z.object({ success: z.literal(true) })

/** An entity's type: a `tenant` at the root of a platform's tree, a `subtenant` below. */
export const EntityType = z.enum(["tenant", "subtenant"])
export type EntityType = z.infer<typeof EntityType>

/** An entity's status (`active`, `suspended`, `deleted`). */
export const EntityStatus = z.enum(["active", "suspended", "deleted"])
export type EntityStatus = z.infer<typeof EntityStatus>

/** A tenant or subtenant as the registry answers it (EntityRecord). */
export const EntityRecord = z.object({
  id: z.string(),
  platformId: z.string(),
  parentId: z.string().nullable(),
  type: EntityType,
  name: z.string(),
  slug: z.string(),
  status: EntityStatus,
  createdAt: z.string(),
  updatedAt: z.string(),
  deletedAt: z.string().nullable()
})
export type EntityRecord = z.infer<typeof EntityRecord>

/** `POST .../entities`: the seed's unnamed optional string is `parentId` (decision 0230). */
export const CreateEntityRequest = z.object({
  name: z.string().min(1).max(NAME_MAX_LENGTH),
  slug: Slug,
  type: EntityType,
  parentId: EntityId.optional()
})
export type CreateEntityRequest = z.input<typeof CreateEntityRequest>

/** `PATCH .../entities/{entityId}`: the seed's unnamed string is `name`. */
export const UpdateEntityRequest = z.object({
  name: z.string().min(1).max(NAME_MAX_LENGTH).optional(),
  status: EntityStatus.optional()
})
export type UpdateEntityRequest = z.input<typeof UpdateEntityRequest>

/** The path of a platform's entities. */
export const EntitiesParams = z.object({ platformId: PlatformId })

/** The path of one entity. */
export const EntityParams = z.object({ platformId: PlatformId, entityId: EntityId })

/** `GET .../entities`: `cursor`, `limit` and the filters `type`, `status`, `parentId`; deleted ones only by `status=deleted`. */
export const ListEntitiesQuery = z.object({
  cursor: cursorParam,
  limit: limitParam(),
  type: EntityType.optional(),
  status: EntityStatus.optional(),
  parentId: EntityId.optional()
})
export type ListEntitiesQuery = z.output<typeof ListEntitiesQuery>

/** `DELETE .../entities/{entityId}?cascade=true` soft-deletes the live descendants too. */
export const DeleteEntityQuery = z.object({ cascade: z.enum(["true", "false"]).optional() })

/** A page of entities. */
export const EntityPage = page(EntityRecord)
export type EntityPage = z.infer<typeof EntityPage>

/** Ancestors or descendants of an entity, ordered from the root. */
export const EntityList = z.object({ data: z.array(EntityRecord) })
