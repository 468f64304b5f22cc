import * as Contracts from "@core/contracts"
import { ROUTE_REFS, type RouteRef } from "@core/contracts/routes"

/** One catalogued route with the gateway path a client sends it to. */
export interface CataloguedRoute {
  /** `<Namespace>.<Catalogue>.<name>`, for messages. */
  readonly label: string
  readonly route: Contracts.RouteSpec
  /** The path at the gateway, placeholders left in (`/api/v1/iam/api/core/grants/{id}`). */
  readonly gatewayPath: string
}

/**
 * Every route of every catalogue (`ROUTE_REFS`, generated from the contracts), with its gateway
 * path: a table over it covers a route as soon as it is declared.
 */
export const everyRoute = (): ReadonlyArray<CataloguedRoute> =>
  Object.entries(ROUTE_REFS).flatMap(([namespace, catalogues]) =>
    Object.entries(catalogues as Record<string, Record<string, RouteRef>>).flatMap(([catalogue, refs]) =>
      Object.entries(refs).map(([name, ref]) => {
        const route = ((Contracts as unknown as Record<string, Record<string, Record<string, Contracts.RouteSpec>>>)[namespace]![catalogue]!)[name]!
        return { label: `${namespace}.${catalogue}.${name}`, route, gatewayPath: `${ref.prefix}${ref.path}` }
      })))

/** Fill a path's placeholders with values already encoded for a URL. */
export const fillPath = (path: string, values: Readonly<Record<string, string>>): string =>
  path.replace(/:(\w+)|\{(\w+)\}/g, (_, colon: string | undefined, brace: string | undefined) => values[(colon ?? brace)!]!)
