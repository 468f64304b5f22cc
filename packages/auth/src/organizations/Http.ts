import { Iam } from "@core/contracts"
import { Route } from "@core/kernel"
import { Clock, Effect, Layer } from "effect"
import { renderer } from "../accounts/BetterAuth.js"
import { Bootstrap } from "./Bootstrap.js"
import { Invitations } from "./Invitations.js"
import { Members } from "./Members.js"
import { envelopeRenderer } from "./OrganizationErrors.js"
import { OrganizationPluginHandlers } from "./OrganizationPlugin.js"
import { Organizations } from "./Organizations.js"
import { OrgSetup } from "./OrgSetup.js"
import * as View from "./OrganizationViews.js"

const Routes = Iam.CoreOrganizationRoutes

const organizationHandlers = [
  Route.handle(Routes.createOrganizationForOwner, ({ caller, body }) =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      return View.organizationDetail(yield* organizations.createForOwner(caller, body))
    })),
  Route.handle(Routes.getOrganizationBySlug, ({ caller, params }) =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      return View.organizationDetail(yield* organizations.getBySlug(caller, params.slug))
    })),
  Route.handle(Routes.bootstrap, ({ caller }) =>
    Effect.gen(function*() {
      const bootstrap = yield* Bootstrap
      const result = yield* bootstrap.bootstrap(caller)
      return Route.json(View.organization(result.organization), { status: result.created ? 201 : 200 })
    })),
  Route.handle(Routes.orgSetup, ({ caller, body }) =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      const { organization } = yield* organizations.create(caller, body)
      if (organization.platformId === null) return yield* Effect.dieMessage("a tenant organization was set up without its platform")
      return { orgId: organization.id, platformId: organization.platformId, slug: organization.slug, name: organization.name }
    }))
]

const invitationHandlers = [
  Route.handle(Routes.listOrganizationInvitations, ({ caller, params, query }) =>
    Effect.gen(function*() {
      const invitations = yield* Invitations
      const page = yield* invitations.page(caller, params.orgId, query)
      const now = yield* Clock.currentTimeMillis
      return { data: page.data.map((row) => View.invitation(row, now)), cursor: page.cursor }
    })),
  Route.handle(Routes.createOrganizationInvitation, ({ caller, params, body }) =>
    Effect.gen(function*() {
      const invitations = yield* Invitations
      const created = yield* invitations.create(caller, { ...body, organizationId: params.orgId })
      return View.invitation(created, yield* Clock.currentTimeMillis)
    })),
  Route.handle(Routes.revokeOrganizationInvitation, ({ caller, params }) =>
    Effect.gen(function*() {
      const invitations = yield* Invitations
      const canceled = yield* invitations.cancel(caller, params.invitationId, params.orgId)
      return { id: canceled.id }
    }))
]

/**
 * The documented organization routes (`/api/core/organizations`, `/api/core/bootstrap`,
 * `/api/core/org-setup` and the invitations), one handler per route of
 * `Iam.CoreOrganizationRoutes`; answered with the kernel's envelope.
 */
export const CoreOrganizationHandlers = [...organizationHandlers, ...invitationHandlers]

/** Every organization route of the identity service (`Iam.OrganizationRoutes`), for the coverage test. */
export const OrganizationsHandlers = [
  ...Route.rendered(renderer, OrganizationPluginHandlers),
  ...Route.rendered(envelopeRenderer, CoreOrganizationHandlers)
]

/**
 * The organization routes of the identity service: the better-auth organization plugin's with its
 * `{ code, message }` errors, and the documented ones with the kernel's envelope.
 */
export const OrganizationsRouter = Route.router(OrganizationsHandlers)

/**
 * Everything the organization routes need but the database (`SqlClient`), `Ids`, `Callers`,
 * `Access`, `AuditLog`, `Mailer`, `AuthUrls` and `PlatformSetup`.
 */
export const OrganizationsLive = Layer.mergeAll(Bootstrap.Default, Invitations.Default).pipe(
  Layer.provideMerge(Members.Default),
  Layer.provideMerge(Organizations.Default),
  Layer.provideMerge(OrgSetup.Default)
)
