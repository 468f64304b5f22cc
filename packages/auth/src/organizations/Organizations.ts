import { type Forbidden, type PlatformSuspended, type UpstreamUnavailable, type ValidationError } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { actorOf } from "../audit/Audit.js"
import { AuditLog } from "../audit/AuditLog.js"
import type { ApiKeyCaller, Caller, UserCaller } from "@core/kernel"
import { Access } from "../authorization/Access.js"
import { type MemberRow, MembersRepo } from "./MembersRepo.js"
import { fail, OrganizationError, requireIn } from "./OrganizationErrors.js"
import { type OrganizationPatch, type OrganizationRow, OrganizationsRepo } from "./OrganizationsRepo.js"
import { OPERATOR_SLUG, OrgSetup, type SetupResult } from "./OrgSetup.js"
import { SessionCache } from "../accounts/SessionCache.js"
import { invalidBody, refusedWhileSuspended as platformSuspended } from "../Errors.js"

/** Which organization a request is about: by id or slug, else the session's active one. */
export interface OrganizationSelector {
  readonly organizationId?: string | undefined
  readonly organizationSlug?: string | undefined
}

/** An organization with its members. */
export interface OrganizationWithMembers {
  readonly organization: OrganizationRow
  readonly members: ReadonlyArray<MemberRow>
}

/**
 * The organization a caller acts in when a request names none: a session's active one, an API key's
 * own; the service key has none.
 */
export const actingOrganizationOf = (caller: Caller): string | null => (caller.kind === "service" ? null : caller.organizationId)

/** How many members the organization reads answer at most. */
export const MEMBERS_LIMIT = 1000

/** What plugin create takes. */
interface CreateInput {
  readonly name: string
  readonly slug: string
  readonly logo?: string | null | undefined
  readonly metadata?: Record<string, unknown> | undefined
  readonly keepCurrentActiveOrganization?: boolean | undefined
}

/** What operator create takes. */
interface CreateForOwnerInput {
  readonly name: string
  readonly slug: string
  readonly ownerId: string
  readonly orgType: "core-operator" | "tenant"
}

/** What `set-active` takes: `organizationId: null` clears the active organization. */
interface SetActiveInput {
  readonly organizationId?: string | null | undefined
  readonly organizationSlug?: string | undefined
}

/** Organizations: creation (through `OrgSetup`), reads, the active organization, update and delete. */
export class Organizations extends Effect.Service<Organizations>()("@core/auth/Organizations", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* OrganizationsRepo
    const members = yield* MembersRepo
    const setup = yield* OrgSetup
    const access = yield* Access
    const audit = yield* AuditLog
    const sessions = yield* SessionCache

    /** What the owners of a suspended platform are refused, with 451 `PLATFORM_SUSPENDED`. */
    const refusedWhileSuspended = (platformId: string, what: string) =>
      Effect.fail(platformSuspended(platformId, what))

    /** Point the session at an organization; its cached context is forgotten at once. */
    const activate = (sessionId: string, organizationId: string | null, now: Date) =>
      Effect.zipRight(repo.setActiveOrganization(sessionId, organizationId, now), sessions.clear)

    const byId = (id: string) =>
      Effect.flatMap(repo.findById(id), Option.match({ onNone: () => fail("ORGANIZATION_NOT_FOUND"), onSome: Effect.succeed }))

    /** The organization a selector names (`None` when it names none and the caller acts in none). */
    const select = (caller: Caller, selector: OrganizationSelector) =>
      Effect.gen(function*() {
        const acting = actingOrganizationOf(caller)
        const found = selector.organizationSlug !== undefined
          ? yield* repo.findBySlug(selector.organizationSlug)
          : selector.organizationId !== undefined || acting !== null
          ? yield* repo.findById(selector.organizationId ?? acting!)
          : undefined
        if (found === undefined) return Option.none<OrganizationRow>()
        if (Option.isNone(found)) return yield* fail("ORGANIZATION_NOT_FOUND")
        return found
      })

    /** Like `select`, failing with `NO_ACTIVE_ORGANIZATION` when nothing is selected. */
    const selectRequired = (caller: Caller, selector: OrganizationSelector) =>
      Effect.flatMap(select(caller, selector), Option.match({
        onNone: () => fail("NO_ACTIVE_ORGANIZATION"),
        onSome: Effect.succeed
      }))

    /** The selected organization, readable by the caller (its members, operators), else `ORGANIZATION_NOT_FOUND`. */
    const readable = (caller: Caller, selector: OrganizationSelector, permission = "org:read") =>
      Effect.flatMap(selectRequired(caller, selector), (organization) =>
        Effect.as(
          requireIn(access, caller, organization.id, permission, "YOU_ARE_NOT_ALLOWED_TO_READ_THIS_ORGANIZATION"),
          organization
        ))

    const withMembers = (organization: OrganizationRow) =>
      Effect.map(members.list(organization.id, { limit: MEMBERS_LIMIT, offset: 0 }), (page) => ({
        organization,
        members: page.members
      }))

    /**
     * Plugin create (also org-setup and its page): the caller becomes owner and (unless kept) the new
     * organization becomes active. The owner of a suspended platform is refused with
     * `PlatformSuspended` before anything is written: a new organization, with its new active
     * platform, would step around the suspension (docs/decisions/0561-suspended-owners-create-no-organization.md).
     */
    const create: (
      caller: UserCaller,
      input: CreateInput
    ) => Effect.Effect<SetupResult, OrganizationError | PlatformSuspended | UpstreamUnavailable> =
      Effect.fn("Organizations.create")(function*(caller: UserCaller, input: CreateInput) {
        const suspended = yield* repo.suspendedPlatformOwnedBy(caller.userId)
        if (Option.isSome(suspended)) return yield* refusedWhileSuspended(suspended.value, "create organizations")
        const result = yield* setup.setup({ ...input, ownerId: caller.userId, orgType: "tenant" }, actorOf(caller))
        if (input.keepCurrentActiveOrganization !== true) {
          const now = new Date(yield* Clock.currentTimeMillis)
          yield* activate(caller.sessionId, result.organization.id, now)
        }
        return result
      })

    /** Operator create (`POST /api/core/organizations`): the static key or an operator names the owner. */
    const createForOwner: (
      caller: Caller,
      input: CreateForOwnerInput
    ) => Effect.Effect<OrganizationWithMembers, Forbidden | ValidationError | OrganizationError | UpstreamUnavailable> =
      Effect.fn("Organizations.createForOwner")(function*(caller: Caller, input: CreateForOwnerInput) {
        yield* access.requireOperatorOrService(caller)
        if (Option.isNone(yield* members.userById(input.ownerId))) {
          return yield* invalidBody("ownerId", "No user has this id")
        }
        const result = yield* setup.setup(input, actorOf(caller))
        return yield* withMembers(result.organization)
      })

    /** `GET /api/core/organizations/{slug}`: for its members, operators and the service. */
    const getBySlug: (caller: Caller, slug: string) => Effect.Effect<OrganizationWithMembers, OrganizationError> =
      Effect.fn("Organizations.getBySlug")(function*(caller: Caller, slug: string) {
        const organization = yield* Effect.flatMap(repo.findBySlug(slug), Option.match({
          onNone: () => fail("ORGANIZATION_NOT_FOUND"),
          onSome: Effect.succeed
        }))
        yield* requireIn(access, caller, organization.id, "org:read", "YOU_ARE_NOT_ALLOWED_TO_READ_THIS_ORGANIZATION")
        return yield* withMembers(organization)
      })

    /**
     * The organizations the caller is a member of; an API key always sees its own organization, and
     * only it (docs/decisions/0172-api-key-callers.md).
     */
    const listMine = Effect.fn("Organizations.listMine")(function*(caller: UserCaller | ApiKeyCaller) {
      if (caller.kind === "user") return yield* repo.listForUser(caller.userId)
      return Option.toArray(yield* repo.findById(caller.organizationId))
    })

    /** The selected organization (or `None` without selection and active organization). */
    const get = (caller: Caller, selector: OrganizationSelector): Effect.Effect<Option.Option<OrganizationRow>, OrganizationError> =>
      Effect.flatMap(select(caller, selector), Option.match({
        onNone: () => Effect.succeed(Option.none()),
        onSome: (organization) =>
          Effect.as(
            requireIn(access, caller, organization.id, "org:read", "YOU_ARE_NOT_ALLOWED_TO_READ_THIS_ORGANIZATION"),
            Option.some(organization)
          )
      }))

    /** `set-active`: `null` clears it; otherwise the caller must be a member of the organization. */
    const setActive: (
      caller: UserCaller,
      input: SetActiveInput
    ) => Effect.Effect<OrganizationRow | null, OrganizationError> =
      Effect.fn("Organizations.setActive")(function*(caller: UserCaller, input: SetActiveInput) {
        const now = new Date(yield* Clock.currentTimeMillis)
        if (input.organizationId === null) {
          yield* activate(caller.sessionId, null, now)
          return null
        }
        const selected = yield* select(caller, {
          organizationId: input.organizationId ?? undefined,
          organizationSlug: input.organizationId === undefined ? input.organizationSlug : undefined
        })
        if (Option.isNone(selected)) return null
        const membership = yield* members.find(selected.value.id, caller.userId)
        if (Option.isNone(membership)) return yield* fail("ORGANIZATION_NOT_FOUND")
        yield* activate(caller.sessionId, selected.value.id, now)
        return selected.value
      })

    /** Rename, re-slug, or change logo and metadata (`org:update`). */
    const update = Effect.fn("Organizations.update")(function*(
      caller: Caller,
      selector: OrganizationSelector,
      patch: OrganizationPatch
    ) {
      const organization = yield* selectRequired(caller, selector)
      yield* requireIn(access, caller, organization.id, "org:update", "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION")
      const now = new Date(yield* Clock.currentTimeMillis)
      const updated = yield* repo.update(organization.id, patch, now)
      if (Option.isNone(updated)) return yield* fail("ORGANIZATION_SLUG_ALREADY_TAKEN")
      yield* audit.record({
        ...actorOf(caller),
        action: "org.update",
        organizationId: organization.id,
        targetType: "organization",
        targetId: organization.id,
        metadata: { fields: Object.keys(patch).filter((key) => patch[key as keyof OrganizationPatch] !== undefined) }
      })
      return updated.value
    })

    /**
     * Delete an organization (`org:delete`: its owners); the operator organization cannot be
     * deleted, nor — but by operators and the static key — one whose platform is suspended (its
     * owners would be free to create another: decision 0561).
     */
    const remove = Effect.fn("Organizations.remove")(function*(caller: Caller, organizationId: string) {
      const organization = yield* byId(organizationId)
      yield* requireIn(access, caller, organization.id, "org:delete", "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION")
      if (organization.orgType === "core-operator") return yield* fail("YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION")
      const platformId = organization.platformId
      if (platformId !== null && (yield* repo.isSuspended(platformId)) && !(yield* access.isPrivileged(caller))) {
        return yield* refusedWhileSuspended(platformId, "delete the organization")
      }
      yield* sql.withTransaction(Effect.zipRight(
        repo.clearActiveOrganization(organization.id),
        repo.remove(organization.id)
      )).pipe(Effect.orDie)
      yield* audit.record({
        ...actorOf(caller),
        action: "org.delete",
        organizationId: organization.id,
        targetType: "organization",
        targetId: organization.id,
        metadata: { slug: organization.slug, platformId: organization.platformId }
      })
      yield* access.invalidate(organization.id)
      return organization
    })

    /** `check-slug`: free answers, taken fails with `ORGANIZATION_SLUG_ALREADY_TAKEN`. */
    const checkSlug = (slug: string): Effect.Effect<void, OrganizationError> =>
      Effect.flatMap(repo.findBySlug(slug), (found) =>
        Option.isSome(found) || slug === OPERATOR_SLUG ? fail("ORGANIZATION_SLUG_ALREADY_TAKEN") : Effect.void)

    return { create, createForOwner, getBySlug, listMine, get, readable, selectRequired, setActive, update, remove, checkSlug, withMembers } as const
  }),
  dependencies: [OrganizationsRepo.Default, MembersRepo.Default, OrgSetup.Default, SessionCache.Default]
}) {}
