import { type Forbidden, type NotFound, type UpstreamUnavailable } from "@core/kernel"
import { Effect, Option } from "effect"
import { actorOf } from "../audit/Audit.js"
import { AuditLog } from "../audit/AuditLog.js"
import type { Caller } from "@core/kernel"
import { Access } from "../authorization/Access.js"
import { Members } from "./Members.js"
import { type MemberRow, MembersRepo } from "./MembersRepo.js"
import { OrganizationError } from "./OrganizationErrors.js"
import { type OrganizationRow, OrganizationsRepo } from "./OrganizationsRepo.js"
import { type Actor, OPERATOR_SLUG, OrgSetup, SYSTEM_ACTOR } from "./OrgSetup.js"
import { noUserWithEmail } from "../Errors.js"

/** The operator organization's display name. */
export const OPERATOR_NAME = "Core operators"

/** The operator organization, and whether this call created it. */
export interface Bootstrapped {
  readonly organization: OrganizationRow
  readonly created: boolean
}

/**
 * The operator organization (`core-operator`): its members are the platform's operators. Created
 * once; every later call answers the same organization.
 */
export class Bootstrap extends Effect.Service<Bootstrap>()("@core/auth/Bootstrap", {
  effect: Effect.gen(function*() {
    const organizations = yield* OrganizationsRepo
    const membersRepo = yield* MembersRepo
    const members = yield* Members
    const setup = yield* OrgSetup
    const access = yield* Access
    const audit = yield* AuditLog

    const existing = Effect.map(organizations.findOperator, Option.map((organization) => ({ organization, created: false })))

    /** The operator organization, created (without members) when absent; a concurrent creation is found. */
    const ensure: (actor: Actor) => Effect.Effect<Bootstrapped, UpstreamUnavailable> =
      Effect.fn("Bootstrap.ensure")(function*(actor: Actor) {
        const found = yield* existing
        if (Option.isSome(found)) return found.value
        const created = yield* setup.setup({ name: OPERATOR_NAME, slug: OPERATOR_SLUG, ownerId: null, orgType: "core-operator" }, actor).pipe(
          Effect.map((result): Bootstrapped => ({ organization: result.organization, created: true })),
          Effect.catchTag("OrganizationError", () =>
            Effect.flatMap(existing, Option.match({
              onNone: () => Effect.dieMessage(`the slug ${OPERATOR_SLUG} belongs to a tenant organization`),
              onSome: Effect.succeed
            })))
        )
        if (created.created) {
          yield* audit.record({
            ...actor,
            action: "bootstrap",
            organizationId: created.organization.id,
            targetType: "organization",
            targetId: created.organization.id,
            metadata: { slug: OPERATOR_SLUG }
          })
        }
        return created
      })

    /** `POST /api/core/bootstrap`: the static service key or an operator. */
    const bootstrap = (caller: Caller): Effect.Effect<Bootstrapped, Forbidden | UpstreamUnavailable> =>
      Effect.zipRight(access.requireOperatorOrService(caller), ensure(actorOf(caller)))

    /**
     * `core-server bootstrap --email E`: the operator organization, with the user of that email as
     * an owner (promoted when already a member). `NotFound` when no user has the email.
     */
    const makeOwner: (
      email: string
    ) => Effect.Effect<Bootstrapped & { readonly member: MemberRow }, NotFound | UpstreamUnavailable> =
      Effect.fn("Bootstrap.makeOwner")(function*(email: string) {
        const user = yield* membersRepo.userByEmail(email)
        if (Option.isNone(user)) return yield* noUserWithEmail(email)
        const bootstrapped = yield* ensure(SYSTEM_ACTOR)
        const organizationId = bootstrapped.organization.id
        const membership = yield* membersRepo.find(organizationId, user.value.id)
        if (Option.isNone(membership)) {
          const member = yield* members.add(organizationId, user.value.id, "owner", SYSTEM_ACTOR).pipe(
            Effect.catchTag("OrganizationError", (error: OrganizationError) => Effect.die(error))
          )
          return { ...bootstrapped, member }
        }
        if (membership.value.role === "owner") return { ...bootstrapped, member: membership.value }
        const promoted = yield* Effect.flatMap(membersRepo.updateRole(membership.value.id, "owner"), Option.match({
          onNone: () => Effect.dieMessage("the membership vanished during bootstrap"),
          onSome: Effect.succeed
        }))
        yield* audit.record({
          ...SYSTEM_ACTOR,
          action: "member.role_change",
          organizationId,
          targetType: "user",
          targetId: user.value.id,
          metadata: { memberId: promoted.id, from: membership.value.role, to: "owner" }
        })
        yield* access.invalidate(organizationId, user.value.id)
        return { ...bootstrapped, member: promoted }
      })

    return { ensure, bootstrap, makeOwner } as const
  }),
  dependencies: [OrganizationsRepo.Default, MembersRepo.Default, Members.Default, OrgSetup.Default]
}) {}
