import { Iam } from "@core/contracts"
import { Route } from "@core/kernel"
import { Effect, Option } from "effect"
import { Sessions } from "../accounts/Sessions.js"
import { ApiKeys } from "../authorization/ApiKeys.js"
import { Organizations } from "../organizations/Organizations.js"
import { homePage, welcomePage } from "./HomePage.js"
import { browserSession, pageContext, renderForm } from "./PageContext.js"
import { page } from "./Respond.js"

const Routes = Iam.WebRoutes

/**
 * `GET /`: signed out, what Core is with sign-up and sign-in; signed in, the user's organizations
 * (with their API keys where the user's role reads them) and live sessions, read through the same
 * use cases as `/api/core/organizations`, `/api/core/apikeys` and `/api/core/sessions`.
 */
const home = () =>
  Effect.gen(function*() {
    const { base } = yield* pageContext
    const session = yield* browserSession
    if (Option.isNone(session)) return page(welcomePage(base))
    const who = session.value
    const [organizations, apiKeys, sessions] = [yield* Organizations, yield* ApiKeys, yield* Sessions]
    const mine = yield* organizations.listMine(who)
    const withKeys = yield* Effect.forEach(mine, (organization) =>
      apiKeys.list(who, organization.id).pipe(
        Effect.map((keys): ReadonlyArray<Iam.ApiKey> | undefined => keys),
        Effect.orElseSucceed(() => undefined),
        Effect.map((keys) => ({ id: organization.id, name: organization.name, slug: organization.slug, apiKeys: keys }))
      ))
    const live = (yield* sessions.list(who.userId)).map((row) => ({
      id: row.id,
      kind: row.kind,
      createdAt: row.createdAt,
      userAgent: row.userAgent,
      ipAddress: row.ipAddress,
      current: row.id === who.sessionId
    }))
    return yield* renderForm("sign-out", who.sessionId, (csrf) =>
      homePage({ base, csrf, name: who.name, email: who.email, organizations: withKeys, sessions: live }))
  })

/** The home page. */
export const HomePageHandlers = [Route.handle(Routes.homePage, home)] as const
