import { ROUTE_REFS, type RouteRef } from "@core/contracts/routes"
import type { CallableRoute } from "./call.js"

const keyOf = (route: { readonly method: string; readonly path: string }): string => `${route.method} ${route.path}`

let prefixes: ReadonlyMap<string, string> | undefined

/** Each catalogued route (by method and path, so a second copy of the contracts still matches) → its gateway prefix. */
const prefixByRoute = (): ReadonlyMap<string, string> =>
  (prefixes ??= new Map(
    Object.values(ROUTE_REFS).flatMap((catalogues) =>
      Object.values(catalogues).flatMap((refs) => Object.values(refs as Readonly<Record<string, RouteRef>>).map((ref) => [keyOf(ref), ref.prefix] as const))
    )
  ))

/**
 * The prefix the gateway serves a route under: a ref's own (from `@core/contracts/routes`, where
 * the prefixes are declared); for a declaration, that of the catalogued route with its method and
 * path, else none (a route whose declaration writes the full gateway path).
 */
export const gatewayPrefixOf = (route: CallableRoute): string =>
  "prefix" in route && typeof route.prefix === "string" ? route.prefix : (prefixByRoute().get(keyOf(route)) ?? "")
