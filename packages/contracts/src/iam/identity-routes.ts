import { z } from "zod"
import { defineRoutes, type RouteSpec } from "../Routes.js"
import { AccountRoutes } from "./accounts-routes.js"
import { AuthorizationRoutes } from "./authorization-routes.js"
import { DeviceRoutes } from "./device.js"
import { OrganizationRoutes } from "./organizations-routes.js"
import { WebRoutes } from "./web-routes.js"

/** Answer of the identity service's `GET /health`: 200 when healthy, 503 when degraded. */
export const IdentityHealth = z.object({
  status: z.enum(["healthy", "degraded"]),
  checks: z.record(z.string(), z.enum(["ok", "error"]))
})
export type IdentityHealth = z.infer<typeof IdentityHealth>

/** The identity service's own operational routes. */
export const ServiceRoutes = defineRoutes({
  identityHealth: {
    method: "GET",
    path: "/health",
    summary: "Health: the database check",
    description: "The identity service's own health, reached through the gateway: its database check, 200 when it answers and 503 (degraded) when it fails. The gateway's /ready covers the whole server.",
    auth: "public",
    responses: {
      200: { schema: IdentityHealth, headers: { "cache-control": "no-store" } },
      503: { description: "Degraded: a check failed", schema: IdentityHealth, headers: { "cache-control": "no-store" } }
    },
    tags: ["identity: service"]
  }
})

/**
 * Every route the identity service serves, once, by name (the names are the operation ids):
 * accounts and sessions, organizations, authorization, device authorization, web pages, health.
 */
export const IdentityRoutes = {
  ...AccountRoutes,
  ...OrganizationRoutes,
  ...AuthorizationRoutes,
  ...DeviceRoutes,
  ...WebRoutes,
  ...ServiceRoutes
} as const

/** The identity catalogues by area, as declared (for tests that check names do not collide). */
export const IDENTITY_CATALOGUES: Readonly<Record<string, Readonly<Record<string, RouteSpec>>>> = {
  accounts: AccountRoutes,
  organizations: OrganizationRoutes,
  authorization: AuthorizationRoutes,
  device: DeviceRoutes,
  web: WebRoutes,
  service: ServiceRoutes
}
