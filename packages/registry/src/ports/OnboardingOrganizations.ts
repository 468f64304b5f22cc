import type { Caller, Conflict, UpstreamUnavailable, ValidationError } from "@core/kernel"
import { Context, type Effect } from "effect"
import type { PlatformTier } from "../PlatformsRepo.js"

/** The organization an onboarding makes for its user (decision 0576). */
export interface OnboardingOrganization {
  /** Its name and slug: the platform's. */
  readonly name: string
  readonly slug: string
  /** The user who becomes its owner. */
  readonly ownerUserId: string
  /** The tier its platform starts on. */
  readonly tier: PlatformTier
}

/**
 * Where an onboarding makes the organization its platform belongs to: identity's organization
 * setup (the organization, its owner, its role mappings and its one platform, through the
 * registry's `Platforms.create`), run by `caller` (the audit log's actor), inside the flow's
 * transaction on a shared database. `Conflict` when the slug is taken (an organization's or a
 * platform's); `ValidationError` on `userId` when no user has that id. The server provides it
 * (`@core/server`'s `OnboardingOrganizationsLive`); without it (a registry alone) an onboarded
 * platform belongs to no organization.
 */
export class OnboardingOrganizations extends Context.Tag("@core/registry/OnboardingOrganizations")<OnboardingOrganizations, {
  readonly create: (
    caller: Caller,
    organization: OnboardingOrganization
  ) => Effect.Effect<{ readonly organizationId: string; readonly platformId: string }, Conflict | ValidationError | UpstreamUnavailable>
}>() {}
