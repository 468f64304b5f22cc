import { DEFAULT_ROLE_PERMISSIONS, DEFAULT_ROLES } from "@core/contracts"
import { Ids, type UpstreamUnavailable } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { type AuditEvent, AuditLog } from "../audit/AuditLog.js"
import { Access } from "../authorization/Access.js"
import { type MemberRow, MembersRepo } from "./MembersRepo.js"
import { OrganizationError } from "./OrganizationErrors.js"
import { type OrganizationRow, OrganizationsRepo } from "./OrganizationsRepo.js"
import { PlatformSetup, type PlatformTier } from "./PlatformSetup.js"
import { platformCreationFailed } from "../Errors.js"

/** The slug of the operator organization; no tenant organization may take it. */
export const OPERATOR_SLUG = "core-operator"

/** Who performs a change, as the audit log records it. */
export type Actor = Pick<AuditEvent, "actorId" | "actorType">

/** The actor of changes made by the server itself (the `core-server bootstrap` command). */
export const SYSTEM_ACTOR: Actor = { actorId: null, actorType: "system" }

/** A new organization. */
export interface SetupInput {
  readonly name: string
  readonly slug: string
  /** Its first member, made `owner`; `null` only for the operator organization bootstrapped by the service. */
  readonly ownerId: string | null
  readonly orgType: "core-operator" | "tenant"
  readonly logo?: string | null | undefined
  readonly metadata?: Record<string, unknown> | undefined
  /** The tier a tenant's platform starts on (an onboarding names it, decision 0576). @default "free" */
  readonly tier?: PlatformTier | undefined
}

/** A set-up organization, its owner and (for a tenant) its platform. */
export interface SetupResult {
  readonly organization: OrganizationRow
  readonly owner: MemberRow | null
  readonly platformId: string | null
}

/** The role mappings every new organization starts with (`DEFAULT_ROLE_PERMISSIONS` of the catalogue). */
export const defaultRoleMappings = DEFAULT_ROLES.map((role) => ({ role, permissions: DEFAULT_ROLE_PERMISSIONS[role] }))

/**
 * The one way an organization comes to be (plugin create, operator create, org-setup, bootstrap):
 * in one transaction the organization, its owner, its default role mappings and — for a tenant —
 * its registry platform on tier `free`. If the registry step fails, nothing remains.
 */
export class OrgSetup extends Effect.Service<OrgSetup>()("@core/auth/OrgSetup", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const organizations = yield* OrganizationsRepo
    const members = yield* MembersRepo
    const platforms = yield* PlatformSetup
    const audit = yield* AuditLog
    const access = yield* Access
    const ids = yield* Ids.Ids

    const createPlatform = (organization: OrganizationRow, ownerUserId: string | null, tier: PlatformTier) =>
      platforms.createPlatform({
        organizationId: organization.id,
        name: organization.name,
        slug: organization.slug,
        tier,
        ownerUserId
      }).pipe(Effect.mapError((error) =>
        error._tag === "Conflict"
          ? OrganizationError.of("ORGANIZATION_ALREADY_EXISTS")
          : platformCreationFailed
      ))

    const inTransaction = (input: SetupInput, now: Date) =>
      Effect.gen(function*() {
        if (input.orgType === "tenant" && input.slug === OPERATOR_SLUG) {
          return yield* OrganizationError.of("ORGANIZATION_ALREADY_EXISTS")
        }
        const inserted = yield* organizations.insert({
          id: yield* ids.make("org"),
          name: input.name,
          slug: input.slug,
          orgType: input.orgType,
          logo: input.logo ?? null,
          metadata: input.metadata ?? null,
          now
        })
        if (Option.isNone(inserted)) return yield* OrganizationError.of("ORGANIZATION_ALREADY_EXISTS")
        let organization = inserted.value
        const owner = input.ownerId === null ? null : yield* members.insert({
          id: yield* ids.make("mem"),
          organizationId: organization.id,
          userId: input.ownerId,
          role: "owner",
          now
        }).pipe(Effect.flatMap(Option.match({
          onNone: () => Effect.dieMessage("a new organization already had its owner"),
          onSome: Effect.succeed
        })))
        yield* organizations.insertRoleMappings(organization.id, defaultRoleMappings, now)
        if (input.orgType === "tenant") {
          const { platformId } = yield* createPlatform(organization, input.ownerId, input.tier ?? "free")
          organization = yield* organizations.setPlatform(organization.id, platformId, now)
        }
        return { organization, owner, platformId: organization.platformId }
      })

    /** Create an organization with everything it needs, and audit it. */
    const setup: (input: SetupInput, actor: Actor) => Effect.Effect<SetupResult, OrganizationError | UpstreamUnavailable> =
      Effect.fn("OrgSetup.setup")(function*(input: SetupInput, actor: Actor) {
        const now = new Date(yield* Clock.currentTimeMillis)
        const result = yield* sql.withTransaction(inTransaction(input, now)).pipe(
          Effect.catchTag("SqlError", Effect.die)
        )
        const { organization, owner } = result
        yield* audit.record({
          ...actor,
          action: "org.create",
          organizationId: organization.id,
          targetType: "organization",
          targetId: organization.id,
          metadata: { slug: organization.slug, orgType: organization.orgType, platformId: result.platformId }
        })
        if (owner !== null) {
          yield* audit.record({
            ...actor,
            action: "member.add",
            organizationId: organization.id,
            targetType: "user",
            targetId: owner.userId,
            metadata: { memberId: owner.id, role: owner.role }
          })
          yield* access.invalidate(organization.id, owner.userId)
        }
        return result
      })

    /**
     * `setup` of a tenant for the user `ownerId`, `None` when no user has that id: for callers that
     * name the owner in a body (an onboarding, decision 0576).
     */
    const setupForUser = (
      input: SetupInput & { readonly ownerId: string },
      actor: Actor
    ): Effect.Effect<Option.Option<SetupResult>, OrganizationError | UpstreamUnavailable> =>
      Effect.flatMap(members.userById(input.ownerId), (user) =>
        Option.isNone(user) ? Effect.succeed(Option.none()) : Effect.map(setup(input, actor), Option.some))

    return { setup, setupForUser } as const
  }),
  dependencies: [OrganizationsRepo.Default, MembersRepo.Default]
}) {}
