import { Iam } from "@core/contracts"
import { Body, Validation } from "@core/kernel"
import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import type { z } from "zod"
import { Authentication } from "../accounts/Authentication.js"
import { Invitations } from "./Invitations.js"
import { Members } from "./Members.js"
import { MEMBERS_LIMIT, Organizations } from "./Organizations.js"
import { handleCause, json } from "../accounts/BetterAuth.js"
import * as View from "./OrganizationViews.js"

const session = Effect.flatMap(Authentication, (auth) => auth.session)

/** A read route's input: the query on GET, the JSON body on POST (an empty POST reads as `{}`). */
const input = <S extends z.ZodType>(schema: S) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    request.method === "GET"
      ? Body.query(schema)
      : request.headers["content-type"] === undefined && (request.headers["content-length"] ?? "0") === "0"
      ? Validation.decode(schema, {}, "body")
      : Body.json(schema))

/** Register a read route for GET and POST alike (better-auth serves GET; the seed lists POST). */
const read = <E, R>(path: `/${string}`, handler: Effect.Effect<ReturnType<typeof json>, E, R>) =>
  (router: HttpRouter.HttpRouter<any, any>) => router.pipe(HttpRouter.get(path, handler), HttpRouter.post(path, handler))

const base = "/api/auth/organization"

const organizationRoutes = HttpRouter.empty.pipe(
  HttpRouter.post(`${base}/create`, Effect.gen(function*() {
    const caller = yield* session
    const body = yield* Body.json(Iam.PluginCreateOrganizationBody)
    const result = yield* Effect.flatMap(Organizations, (s) => s.create(caller, body))
    return json({
      ...View.pluginOrganization(result.organization),
      members: result.owner === null ? [] : [View.pluginMember(result.owner, false)]
    })
  })),
  read(`${base}/list`, Effect.gen(function*() {
    const caller = yield* session
    const rows = yield* Effect.flatMap(Organizations, (s) => s.listMine(caller))
    return json(rows.map(View.pluginOrganization))
  })),
  HttpRouter.post(`${base}/set-active`, Effect.gen(function*() {
    const caller = yield* session
    const body = yield* Body.json(Iam.PluginSetActiveBody)
    const active = yield* Effect.flatMap(Organizations, (s) => s.setActive(caller, body))
    return json(active === null ? null : View.pluginOrganization(active))
  })),
  read(`${base}/get-full-organization`, Effect.gen(function*() {
    const caller = yield* session
    const selector = yield* input(Iam.PluginOrganizationSelector)
    const organizations = yield* Organizations
    const found = yield* organizations.get(caller, selector)
    if (Option.isNone(found)) return json(null)
    const { members } = yield* organizations.withMembers(found.value)
    const invitations = yield* Effect.flatMap(Invitations, (s) => s.list(caller, found.value.id)).pipe(
      Effect.catchTag("OrganizationError", () => Effect.succeed([]))
    )
    return json({
      ...View.pluginOrganization(found.value),
      members: members.slice(0, selector.membersLimit ?? MEMBERS_LIMIT).map((m) => View.pluginMember(m)),
      invitations: invitations.map(View.pluginInvitation)
    })
  })),
  HttpRouter.post(`${base}/check-slug`, Effect.gen(function*() {
    yield* session
    const body = yield* Body.json(Iam.PluginCheckSlugBody)
    yield* Effect.flatMap(Organizations, (s) => s.checkSlug(body.slug))
    return json({ status: true })
  })),
  HttpRouter.post(`${base}/update`, Effect.gen(function*() {
    const caller = yield* session
    const body = yield* Body.json(Iam.PluginUpdateOrganizationBody)
    const updated = yield* Effect.flatMap(Organizations, (s) =>
      s.update(caller, { organizationId: body.organizationId }, body.data))
    return json(View.pluginOrganization(updated))
  })),
  HttpRouter.post(`${base}/delete`, Effect.gen(function*() {
    const caller = yield* session
    const body = yield* Body.json(Iam.PluginOrganizationIdBody)
    const deleted = yield* Effect.flatMap(Organizations, (s) => s.remove(caller, body.organizationId))
    return json(View.pluginOrganization(deleted))
  }))
)

const memberRoutes = HttpRouter.empty.pipe(
  read(`${base}/list-members`, Effect.gen(function*() {
    const caller = yield* session
    const query = yield* input(Iam.PluginListMembersQuery)
    const page = yield* Effect.flatMap(Members, (s) => s.list(caller, query, query))
    return json({ members: page.members.map((m) => View.pluginMember(m)), total: page.total })
  })),
  HttpRouter.get(`${base}/get-active-member`, Effect.gen(function*() {
    const caller = yield* session
    return json(View.pluginMember(yield* Effect.flatMap(Members, (s) => s.active(caller))))
  })),
  HttpRouter.post(`${base}/remove-member`, Effect.gen(function*() {
    const caller = yield* session
    const body = yield* Body.json(Iam.PluginRemoveMemberBody)
    const removed = yield* Effect.flatMap(Members, (s) => s.remove(caller, body))
    return json({ member: View.pluginMember(removed, false) })
  })),
  HttpRouter.post(`${base}/update-member-role`, Effect.gen(function*() {
    const caller = yield* session
    const body = yield* Body.json(Iam.PluginUpdateMemberRoleBody)
    const updated = yield* Effect.flatMap(Members, (s) => s.updateRole(caller, body))
    return json(View.pluginMember(updated))
  })),
  HttpRouter.post(`${base}/leave`, Effect.gen(function*() {
    const caller = yield* session
    const body = yield* Body.json(Iam.PluginOrganizationIdBody)
    const left = yield* Effect.flatMap(Members, (s) => s.leave(caller, body.organizationId))
    return json(View.pluginMember(left))
  }))
)

const invitationRoutes = HttpRouter.empty.pipe(
  HttpRouter.post(`${base}/invite-member`, Effect.gen(function*() {
    const caller = yield* session
    const body = yield* Body.json(Iam.PluginInviteMemberBody)
    const organization = yield* Effect.flatMap(Organizations, (s) => s.selectRequired(caller, body))
    const created = yield* Effect.flatMap(Invitations, (s) =>
      s.create(caller, { organizationId: organization.id, email: body.email, role: body.role, resend: body.resend }))
    return json(View.pluginInvitation(created))
  })),
  HttpRouter.post(`${base}/accept-invitation`, Effect.gen(function*() {
    const caller = yield* session
    const body = yield* Body.json(Iam.PluginInvitationIdBody)
    const accepted = yield* Effect.flatMap(Invitations, (s) => s.accept(caller, body.invitationId))
    return json({ invitation: View.pluginInvitation(accepted.invitation), member: View.pluginMember(accepted.member, false) })
  })),
  HttpRouter.post(`${base}/reject-invitation`, Effect.gen(function*() {
    const caller = yield* session
    const body = yield* Body.json(Iam.PluginInvitationIdBody)
    const rejected = yield* Effect.flatMap(Invitations, (s) => s.reject(caller, body.invitationId))
    return json({ invitation: View.pluginInvitation(rejected), member: null })
  })),
  HttpRouter.post(`${base}/cancel-invitation`, Effect.gen(function*() {
    const caller = yield* session
    const body = yield* Body.json(Iam.PluginInvitationIdBody)
    const canceled = yield* Effect.flatMap(Invitations, (s) => s.cancel(caller, body.invitationId))
    return json(View.pluginInvitation(canceled))
  })),
  read(`${base}/get-invitation`, Effect.gen(function*() {
    const caller = yield* session
    const query = yield* input(Iam.PluginGetInvitationQuery)
    const detail = yield* Effect.flatMap(Invitations, (s) => s.get(caller, query.id))
    return json({
      ...View.pluginInvitation(detail.invitation),
      organizationName: detail.organization.name,
      organizationSlug: detail.organization.slug,
      inviterEmail: detail.inviterEmail
    })
  })),
  read(`${base}/list-invitations`, Effect.gen(function*() {
    const caller = yield* session
    const query = yield* input(Iam.PluginListInvitationsQuery)
    const organization = yield* Effect.flatMap(Organizations, (s) => s.selectRequired(caller, query))
    const rows = yield* Effect.flatMap(Invitations, (s) => s.list(caller, organization.id))
    return json(rows.map(View.pluginInvitation))
  }))
)

/**
 * The better-auth organization plugin's routes (`/api/auth/organization/*`), answering its shapes
 * and its `{ code, message }` errors.
 */
export const OrganizationPluginRouter = HttpRouter.concatAll(organizationRoutes, memberRoutes, invitationRoutes).pipe(
  HttpRouter.catchAllCause(handleCause)
)
