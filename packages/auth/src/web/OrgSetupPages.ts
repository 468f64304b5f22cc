import { Iam } from "@core/contracts"
import { Route, Validation } from "@core/kernel"
import { Effect, Either, Option } from "effect"
import { OrganizationError } from "../organizations/OrganizationErrors.js"
import { Organizations } from "../organizations/Organizations.js"
import { href, PAGE } from "./Links.js"
import { orgCreatedPage, orgSetupPage } from "./OrgSetupPage.js"
import { browserSession, CSRF_MESSAGE, pageContext, refusedForm, renderForm, signInFirst, signInRequired } from "./PageContext.js"
import { page, seeOther } from "./Respond.js"

const Routes = Iam.WebRoutes

const SLUG_MESSAGE = "Use 1 to 63 lowercase letters, digits and dashes."
const NAME_MESSAGE = "Enter a name of 1 to 100 characters."

/**
 * `GET /org-setup`: the form for the signed-in user; without a session, sign in first. With
 * `?created=<id>` (where a successful post redirects), the organization created, when the user is
 * one of its members; else the form.
 */
const orgSetupForm = ({ query }: Route.Input<typeof Routes.orgSetupPage>) =>
  Effect.gen(function*() {
    const { base } = yield* pageContext
    const session = yield* browserSession
    if (Option.isNone(session)) return signInFirst(base, href(base, PAGE.orgSetup, { created: query.created }))
    const who = session.value
    if (query.created !== undefined) {
      const organizations = yield* Organizations
      const created = (yield* organizations.listMine(who)).find((organization) => organization.id === query.created)
      if (created !== undefined) {
        return page(orgCreatedPage({
          base,
          orgId: created.id,
          platformId: created.platformId,
          name: created.name,
          slug: created.slug
        }))
      }
    }
    return yield* renderForm("org-setup", who.sessionId, (csrf) => orgSetupPage({ base, csrf, email: who.email }))
  })

/** `POST /org-setup`: the same session rule, contract and use case as `POST /api/core/org-setup`. */
const orgSetup = ({ body }: Route.Input<typeof Routes.submitOrgSetup>) =>
  Effect.gen(function*() {
    const { base } = yield* pageContext
    const session = yield* browserSession
    if (Option.isNone(session)) return signInRequired(base, PAGE.orgSetup, "Sign in to create an organization.")
    const who = session.value
    const { name, slug } = body
    const again = (status: number, view: { error?: string; fieldErrors?: Record<string, string> }) =>
      renderForm("org-setup", who.sessionId, (csrf) => orgSetupPage({ base, csrf, email: who.email, name, slug, ...view }), status)
    if (yield* refusedForm("org-setup", body.csrf, who.sessionId)) return yield* again(403, { error: CSRF_MESSAGE })
    const decoded = yield* Effect.either(Validation.decode(Iam.OrgSetupRequest, { name, slug }))
    if (Either.isLeft(decoded)) {
      const wrong = new Set(decoded.left.issues.map((issue) => issue.path))
      return yield* again(400, {
        fieldErrors: { ...(wrong.has("name") ? { name: NAME_MESSAGE } : {}), ...(wrong.has("slug") ? { slug: SLUG_MESSAGE } : {}) }
      })
    }
    const organizations = yield* Organizations
    const outcome = yield* Effect.either(organizations.create(who, decoded.right))
    if (Either.isLeft(outcome)) {
      const error = outcome.left
      if (error instanceof OrganizationError && error.toCore()._tag === "Conflict") {
        return yield* again(409, { fieldErrors: { slug: "This slug is already taken. Choose another one." } })
      }
      if (error._tag === "PlatformSuspended") return yield* again(451, { error: error.message })
      return yield* Effect.fail(error instanceof OrganizationError ? error.toCore() : error)
    }
    return seeOther(href(base, PAGE.orgSetup, { created: outcome.right.organization.id }))
  })

/** The organization setup page and its form. */
export const OrgSetupPageHandlers = [
  Route.handle(Routes.orgSetupPage, orgSetupForm),
  Route.handle(Routes.submitOrgSetup, orgSetup)
] as const
