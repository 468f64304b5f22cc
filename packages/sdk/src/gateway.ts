import { Iam, type RouteSpec } from "@core/contracts"

/** The gateway prefix of the identity service: its routes are reached at `/api/v1/iam<route path>`. */
export const IAM_PREFIX = "/api/v1/iam"

const keyOf = (route: Pick<RouteSpec, "method" | "path">): string => `${route.method} ${route.path}`

/** Each catalogued route (by method and path, so a second copy of the contracts still matches) → its service's prefix. */
const prefixes: ReadonlyMap<string, string> = new Map(Object.values(Iam.IdentityRoutes).map((route) => [keyOf(route), IAM_PREFIX]))

/**
 * The prefix the gateway serves a route under: the identity service's for an identity route, none
 * for any other (whose catalogue then writes the full gateway path).
 */
export const gatewayPrefixOf = (route: RouteSpec): string => prefixes.get(keyOf(route)) ?? ""
