import { Iam } from "@core/contracts"
import { Body } from "@core/kernel"
import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Layer } from "effect"
import { Bootstrap } from "./Bootstrap.js"
import { Authentication } from "../accounts/Authentication.js"
import { Invitations } from "./Invitations.js"
import { Members } from "./Members.js"
import { OrganizationError } from "./OrganizationErrors.js"
import { Organizations } from "./Organizations.js"
import { OrgSetup } from "./OrgSetup.js"
import { OrganizationPluginRouter } from "./OrganizationPlugin.js"
import * as View from "./OrganizationViews.js"

const json = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status })

const caller = Effect.flatMap(Authentication, (auth) => auth.caller)

/** Organization rules answered through the kernel's envelope (`409 CONFLICT`, `404 NOT_FOUND`, …). */
const enveloped = <A, E, R>(effect: Effect.Effect<A, E | OrganizationError, R>): Effect.Effect<A, E, R> =>
  Effect.catchIf(
    effect,
    (error): error is OrganizationError => error instanceof OrganizationError,
    (error) => Effect.fail(error.toCore() as E)
  )

const organizations = HttpRouter.empty.pipe(
  HttpRouter.post("/api/core/organizations", enveloped(Effect.gen(function*() {
    const who = yield* caller
    const body = yield* Body.json(Iam.CreateOrganizationRequest)
    const created = yield* Effect.flatMap(Organizations, (s) => s.createForOwner(who, body))
    return json(View.organizationDetail(created), 201)
  }))),
  HttpRouter.get("/api/core/organizations/:slug", enveloped(Effect.gen(function*() {
    const who = yield* caller
    const { slug } = yield* Body.params(Iam.OrganizationSlugParams)
    return json(View.organizationDetail(yield* Effect.flatMap(Organizations, (s) => s.getBySlug(who, slug))))
  }))),
  HttpRouter.post("/api/core/bootstrap", Effect.gen(function*() {
    const who = yield* caller
    const result = yield* Effect.flatMap(Bootstrap, (s) => s.bootstrap(who))
    return json(View.organization(result.organization), result.created ? 201 : 200)
  })),
  HttpRouter.post("/api/core/org-setup", enveloped(Effect.gen(function*() {
    const who = yield* Effect.flatMap(Authentication, (auth) => auth.cookieSession)
    const body = yield* Body.json(Iam.OrgSetupRequest)
    const { organization } = yield* Effect.flatMap(Organizations, (s) => s.create(who, body))
    return json({ orgId: organization.id, platformId: organization.platformId, slug: organization.slug, name: organization.name }, 201)
  })))
)

const invitations = HttpRouter.empty.pipe(
  HttpRouter.get("/api/core/organizations/:orgId/invitations", enveloped(Effect.gen(function*() {
    const who = yield* caller
    const { orgId } = yield* Body.params(Iam.InvitationsParams)
    const query = yield* Body.query(Iam.ListInvitationsQuery)
    const page = yield* Effect.flatMap(Invitations, (s) => s.page(who, orgId, query))
    const now = yield* Clock.currentTimeMillis
    return json({ data: page.data.map((row) => View.invitation(row, now)), cursor: page.cursor })
  }))),
  HttpRouter.post("/api/core/organizations/:orgId/invitations", enveloped(Effect.gen(function*() {
    const who = yield* caller
    const { orgId } = yield* Body.params(Iam.InvitationsParams)
    const body = yield* Body.json(Iam.CreateInvitationRequest)
    const created = yield* Effect.flatMap(Invitations, (s) => s.create(who, { ...body, organizationId: orgId }))
    return json(View.invitation(created, yield* Clock.currentTimeMillis), 201)
  }))),
  HttpRouter.del("/api/core/organizations/:orgId/invitations/:invitationId", enveloped(Effect.gen(function*() {
    const who = yield* caller
    const { invitationId, orgId } = yield* Body.params(Iam.InvitationParams)
    const canceled = yield* Effect.flatMap(Invitations, (s) => s.cancel(who, invitationId, orgId))
    return json({ id: canceled.id })
  })))
)

/**
 * The organization routes of the identity service: the better-auth organization plugin
 * (`/api/auth/organization/*`, its own error bodies), and the documented `/api/core/organizations`,
 * `/api/core/bootstrap`, `/api/core/org-setup` and invitation routes (the kernel's envelope, applied
 * by the app).
 */
export const OrganizationsRouter = HttpRouter.concatAll(OrganizationPluginRouter, organizations, invitations)

/**
 * Everything the organization routes need but the database (`SqlClient`), `Ids`, `Authentication`,
 * `Access`, `AuditLog`, `Mailer`, `AuthUrls` and `PlatformSetup`.
 */
export const OrganizationsLive = Layer.mergeAll(Bootstrap.Default, Invitations.Default).pipe(
  Layer.provideMerge(Members.Default),
  Layer.provideMerge(Organizations.Default),
  Layer.provideMerge(OrgSetup.Default)
)
