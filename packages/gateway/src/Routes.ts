import { serviceMounts, UPSTREAM_NAMES, type UpstreamName } from "@core/contracts"

/** The internal services the gateway can forward to (`CORE_UPSTREAM_<SERVICE>_URL`), from their declarations. */
export const SERVICES: ReadonlyArray<UpstreamName> = UPSTREAM_NAMES

/** One internal service name. */
export type ServiceName = UpstreamName

/** Whether a string names an internal service (case-sensitive, upper case). */
export const isServiceName = (value: string): value is ServiceName => (SERVICES as ReadonlyArray<string>).includes(value)

/** One row of the routing table: a public path prefix and the service behind it. */
export interface Route {
  readonly prefix: string
  readonly service: ServiceName
  /**
   * Everything under the prefix stays open to a suspended platform's callers, declared or not (a
   * service without a catalogue, such as billing: a suspended tenant can still pay; docs/gateway.md).
   * A single route is exempted by its declaration (`suspension: "exempt"`) instead. `RouteRules`
   * folds both into each request's rule.
   */
  readonly suspensionExempt?: true
  /**
   * The upstream receives the whole path, the prefix kept: for a prefix that is one of several of
   * a service whose catalogue declares full gateway paths (the registry's `/api/v1/resources` and
   * `/api/v1/lookup` beside `/api/v1/platforms`; stripped, `/api/v1/lookup` would be `/`, the
   * platform list). Decision 0242.
   */
  readonly keepPrefix?: true
  /**
   * The route is a protected resource with RFC 9728 metadata at this root path: its 401s carry
   * `WWW-Authenticate: Bearer realm="core", resource_metadata="<root><path>"` (the MCP
   * authorization specification; decision 0606).
   */
  readonly resourceMetadata?: string
  /**
   * `Host` must name this server — `CORE_PUBLIC_URL`'s host or a loopback name — else 403 (DNS
   * rebinding; the MCP transport specification; decision 0607). `Origin` is CORS's to check.
   */
  readonly checksHost?: true
}

/** The public base every routed path starts with. */
export const API_BASE = "/api/v1"

/**
 * The gateway's routing table: every public prefix of every service, as the services' declarations
 * in `@core/contracts` give them (`ServiceDeclarations.ts`; the specification's "Gateway routing").
 */
export const ROUTES: ReadonlyArray<Route> = serviceMounts().map(({ upstream, ...mount }) => ({ ...mount, service: upstream }))

/** A request target split into its normalized path and its raw query (with the `?`, or empty). */
export interface Target {
  readonly pathname: string
  readonly search: string
}

/**
 * Split a request URL (origin-form `/a/b?c` or absolute-form) into a path with dot segments
 * resolved the way an HTTP upstream would resolve them, and the query string kept verbatim.
 */
export const targetOf = (url: string): Target => {
  const queryAt = url.indexOf("?")
  const rawPath = queryAt === -1 ? url : url.slice(0, queryAt)
  const search = queryAt === -1 ? "" : url.slice(queryAt)
  return { pathname: normalizePath(rawPath), search }
}

/** A path the URL parser would return unchanged: no dot segment, nothing it would encode or decode. */
const ORDINARY_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/

const normalizePath = (rawPath: string): string => {
  if (ORDINARY_PATH.test(rawPath) && !rawPath.includes("/.")) return rawPath
  try {
    return new URL(rawPath.startsWith("/") ? `http://gateway.invalid${rawPath}` : rawPath).pathname
  } catch {
    return rawPath
  }
}

/** Whether a path lies under a prefix at a segment boundary (`/a/b` is under `/a`, `/ab` is not). */
export const isUnder = (pathname: string, prefix: string): boolean =>
  pathname === prefix || pathname.startsWith(`${prefix}/`)

/** A matched route and the URL its upstream sees: the prefix removed, the query kept. */
export interface Match {
  readonly route: Route
  readonly url: string
}

/**
 * Find the route of a request URL: the longest matching prefix.
 *
 * @example
 * match(ROUTES, "/api/v1/platforms/abc?x=1") // { route: { prefix: "/api/v1/platforms", ... }, url: "/abc?x=1" }
 * match(ROUTES, "/api/v1/platforms") // url "/"
 */
export const match = (routes: ReadonlyArray<Route>, url: string): Match | undefined => matchTarget(routes, targetOf(url))

/** `match` for a request target already split by `targetOf`. */
export const matchTarget = (routes: ReadonlyArray<Route>, { pathname, search }: Target): Match | undefined => {
  let best: Route | undefined
  for (const route of routes) {
    if (isUnder(pathname, route.prefix) && (best === undefined || route.prefix.length > best.prefix.length)) {
      best = route
    }
  }
  if (best === undefined) return undefined
  if (best.keepPrefix === true) return { route: best, url: `${pathname}${search}` }
  const rest = pathname.slice(best.prefix.length)
  return { route: best, url: `${rest === "" ? "/" : rest}${search}` }
}
