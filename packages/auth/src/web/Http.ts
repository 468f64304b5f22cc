import { Iam } from "@core/contracts"
import { Route } from "@core/kernel"
import { AccountPageHandlers } from "./AccountPages.js"
import { Csrf } from "./Csrf.js"
import { DevicePageHandlers } from "./DevicePages.js"
import { pageRenderer } from "./ErrorPages.js"
import { HomePageHandlers } from "./HomePages.js"
import { OrgSetupPageHandlers } from "./OrgSetupPages.js"
import { PasswordResetPageHandlers } from "./PasswordResetPages.js"

/** Every route of `Iam.WebRoutes`: the account pages, organization setup and device activation. */
export const WebHandlers = Route.rendered(pageRenderer, [
  ...HomePageHandlers,
  ...AccountPageHandlers,
  ...PasswordResetPageHandlers,
  ...OrgSetupPageHandlers,
  ...DevicePageHandlers
] as const)

/**
 * The identity web pages (server-rendered HTML, no script): `/`, `/sign-in`, `/sign-up`, `/sign-out`,
 * `/account`, `/forgot-password`, `/reset-password`, `/org-setup` and `/device`. Forms post back to the same path, CSRF-checked; failures
 * answer as pages, never the JSON envelope. Links follow `X-Forwarded-Prefix`.
 */
export const PagesRouter = Route.router(WebHandlers)

/** What the pages add to the identity services: the CSRF protection (keyed from `CORE_SECRET`). */
export const PagesLive = Csrf.Default

/**
 * The paths the pages answer (from the catalogue), for a host that mounts them beside other routes
 * (the all-in-one server).
 */
export const PAGE_PATHS: ReadonlyArray<`/${string}`> = [...new Set(Object.values(Iam.WebRoutes).map((route) => route.path))]
