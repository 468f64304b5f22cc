import { Iam, type RateLimitClass, type RouteSpec } from "@core/contracts"
import { type Catalogue, CONTRACTS, gatewayPath, type ServiceContract } from "./OpenApiDocument.js"
import { isUnder, type Route, ROUTES } from "./Routes.js"

/**
 * What the route catalogue (docs/architecture.md) says the gateway does with one request: whether it passes
 * without credentials, its rate-limit class, whether a write authenticated by the session cookie
 * is checked for another site's origin, whether a suspended platform's callers may still use it,
 * and whether a successful answer changes the caller's tenant.
 */
export interface Rule {
  /** Auth `public` in the catalogue (or the gateway's own public routes): no credentials needed. */
  readonly public: boolean
  /** `credentials` has the strict limit, `exempt` is not counted. */
  readonly rateLimit: RateLimitClass
  /**
   * A write authenticated by the session cookie is refused when it comes from another site (not
   * for a route whose service refuses it itself, in its protocol: `crossSite: "service"`).
   */
  readonly crossSiteCheck: boolean
  /**
   * Open to a suspended platform's callers: the route declares `suspension: "exempt"` (sign-out,
   * get-session), or it lies under a prefix of the routing table marked `suspensionExempt`
   * (billing, declared or not).
   */
  readonly suspensionExempt: boolean
  /**
   * A successful answer changes the caller's tenant, role or permissions (`changesTenant` in the
   * catalogue; never for GET, HEAD or OPTIONS): the caller's cached credential answers are dropped.
   */
  readonly changesTenant: boolean
  /** The declared path as the gateway serves it (`/api/v1/iam/api/auth/reset-password/:token`); `undefined` when undeclared. */
  readonly path: string | undefined
}

/** A compiled catalogue: the rule of any request, by method and normalized path. */
export interface Table {
  /**
   * The rule of a request. `HEAD` follows the `GET` route of its path. A request no catalogue
   * declares (another method, another path, a path parameter with an encoded `/`) needs
   * credentials and has the general limit.
   */
  readonly ruleOf: (method: string, pathname: string) => Rule
}

/** Catalogues served under a gateway prefix (a `ServiceContract` is one). */
export interface Mount {
  readonly prefix: string
  readonly base?: string
  readonly catalogues: ReadonlyArray<Catalogue>
  /**
   * The service's further prefixes, forwarded whole: a route declared under one is reached at its
   * declared path too (the registry's `/api/v1/resources/…`, identity's root RFC 8414 metadata).
   */
  readonly alsoAt?: Readonly<Record<string, string>>
}

/**
 * Identity's web pages, which the all-in-one server also serves at the root (decision 0154):
 * their posts at `/sign-in` and `/sign-up` have the strict limit there too.
 */
export const PAGES: Mount = { prefix: "", catalogues: [Iam.WebRoutes] }

/**
 * Every mount the gateway's table is compiled from by default: `CONTRACTS` (the gateway's own routes
 * and each service's declaration, whose further prefixes bring the root's well-known documents) and
 * `PAGES`.
 */
export const MOUNTS: ReadonlyArray<Mount> = [...CONTRACTS, PAGES]

const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"])

const undeclaredRule = (crossSiteCheck: boolean, suspensionExempt: boolean): Rule => ({
  public: false,
  rateLimit: "default",
  crossSiteCheck,
  suspensionExempt,
  changesTenant: false,
  path: undefined
})

const UNDECLARED_SAFE = undeclaredRule(false, false)
const UNDECLARED_WRITE = undeclaredRule(true, false)
const UNDECLARED_SAFE_EXEMPT = undeclaredRule(false, true)
const UNDECLARED_WRITE_EXEMPT = undeclaredRule(true, true)

/** The rule of a request no catalogue declares (outside any prefix exempt from suspension). */
export const undeclared = (method: string): Rule => (SAFE_METHODS.has(method) ? UNDECLARED_SAFE : UNDECLARED_WRITE)

/** `undeclared`, for a path under a prefix of the routing table marked `suspensionExempt`. */
const undeclaredExempt = (method: string): Rule => (SAFE_METHODS.has(method) ? UNDECLARED_SAFE_EXEMPT : UNDECLARED_WRITE_EXEMPT)

/** The prefixes of a routing table whose services are open to suspended platforms as a whole. */
export const suspensionExemptPrefixes = (routes: ReadonlyArray<Route>): ReadonlyArray<string> =>
  routes.filter((route) => route.suspensionExempt === true).map((route) => route.prefix)

const ruleOfRoute = (route: RouteSpec, path: string, exemptPrefixes: ReadonlyArray<string>): Rule => ({
  public: route.auth === "public",
  rateLimit: route.rateLimit ?? "default",
  crossSiteCheck: !SAFE_METHODS.has(route.method) && route.crossSite !== "service",
  suspensionExempt: route.suspension === "exempt" || exemptPrefixes.some((prefix) => isUnder(path, prefix)),
  changesTenant: route.changesTenant === true && !SAFE_METHODS.has(route.method),
  path
})

const PLACEHOLDER = /:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\}/g
const HAS_PLACEHOLDER = /:[A-Za-z_]|\{[A-Za-z_][A-Za-z0-9_]*\}/

/** One path segment as a parameter value (a path with an encoded `/` never matches a pattern). */
const SEGMENT = "[^/]+"

/** An encoded `/`: a path parameter holding one could be routed otherwise upstream. */
const ENCODED_SLASH = /%2f/i

const escape = (literal: string): string => literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** A declared path with parameters, as a whole-path pattern. */
interface Pattern {
  /** The literal part before the first parameter: a cheap test before the expression. */
  readonly head: string
  readonly expression: RegExp
  readonly rule: Rule
}

const patternOf = (path: string, rule: Rule): Pattern => {
  const first = path.search(PLACEHOLDER)
  let source = ""
  let at = 0
  for (const found of path.matchAll(PLACEHOLDER)) {
    source += `${escape(path.slice(at, found.index))}${SEGMENT}`
    at = found.index + found[0].length
  }
  source += escape(path.slice(at))
  return { head: path.slice(0, first), expression: new RegExp(`^${source}$`), rule }
}

const sameRule = (a: Rule, b: Rule): boolean =>
  a.public === b.public && a.rateLimit === b.rateLimit && a.crossSiteCheck === b.crossSiteCheck &&
  a.suspensionExempt === b.suspensionExempt && a.changesTenant === b.changesTenant

const entriesOf = (catalogue: Catalogue): ReadonlyArray<RouteSpec> =>
  Array.isArray(catalogue) ? (catalogue as ReadonlyArray<RouteSpec>) : Object.values(catalogue as Readonly<Record<string, RouteSpec>>)

/** The gateway's own public route of a prefixed service: its OpenAPI document. */
const OPENAPI_ROUTE: RouteSpec = {
  method: "GET",
  path: "/openapi.json",
  summary: "The service's OpenAPI document",
  auth: "public",
  responses: { 200: null }
}

/**
 * Compile the catalogues once (at gateway construction): each route at its gateway path
 * (`gatewayPath`: the mount's prefix, the service's base replaced), and each prefixed service's
 * `/openapi.json` as public. Paths without parameters go in one map (path → method → rule); paths
 * with `:param` or `{param}` placeholders become whole-path patterns, grouped by mount prefix and
 * tried only when the exact lookup misses. A path literally declared wins over a pattern; between
 * patterns the first declared wins. The routing table (`routes`) contributes the prefixes exempt
 * from suspension as a whole (billing): every route under one, and every undeclared path under one,
 * has `suspensionExempt`.
 *
 * @throws Error when one method and path is declared twice with different rules (a catalogue bug).
 *
 * @example
 * const rules = RouteRules.compile()
 * rules.ruleOf("GET", "/api/v1/iam/api/auth/reset-password/abc").public // true
 */
export const compile = (mounts: ReadonlyArray<Mount> = MOUNTS, routes: ReadonlyArray<Route> = ROUTES): Table => {
  const exemptPrefixes = suspensionExemptPrefixes(routes)
  const exact = new Map<string, Map<string, Rule>>()
  /** Per mount prefix with parameterized routes: method → its patterns, in declaration order. */
  const groups: Array<{ readonly prefix: string; readonly byMethod: Map<string, Array<Pattern>> }> = []
  const groupOf = new Map<string, Map<string, Array<Pattern>>>()
  for (const mount of mounts) {
    const contract: Pick<ServiceContract, "prefix" | "base"> = mount
    const further = Object.values(mount.alsoAt ?? {})
    const specs = [...mount.catalogues.flatMap(entriesOf), ...(mount.prefix === "" ? [] : [OPENAPI_ROUTE])]
    for (const route of specs) {
      // Under the mount's prefix (the base replaced), and at its declared path when that lies under
      // one of the service's further prefixes, forwarded whole.
      const whole = further.find((prefix) => isUnder(route.path, prefix))
      const places = [{ path: gatewayPath(contract, route.path), group: mount.prefix }, ...(whole === undefined ? [] : [{ path: route.path, group: whole }])]
      for (const { path, group } of places) {
        const rule = ruleOfRoute(route, path, exemptPrefixes)
        // A service's `/` is its prefix with or without the slash: the pages link `/api/v1/iam/`,
        // the OpenAPI document lists `/api/v1/iam` (decision 0610).
        if (route.path === "/" && mount.prefix !== "" && group === mount.prefix) exact.set(mount.prefix, new Map([...(exact.get(mount.prefix) ?? []), [route.method, rule]]))
        if (HAS_PLACEHOLDER.test(path)) {
          let patterns = groupOf.get(group)
          if (patterns === undefined) {
            groupOf.set(group, (patterns = new Map()))
            groups.push({ prefix: group, byMethod: patterns })
          }
          const ofMethod = patterns.get(route.method)
          if (ofMethod === undefined) patterns.set(route.method, [patternOf(path, rule)])
          else ofMethod.push(patternOf(path, rule))
          continue
        }
        let byMethod = exact.get(path)
        if (byMethod === undefined) exact.set(path, (byMethod = new Map()))
        const known = byMethod.get(route.method)
        if (known !== undefined && !sameRule(known, rule)) {
          throw new Error(`${route.method} ${path} is declared twice with different auth or rate-limit classes (or suspension or tenant flags)`)
        }
        byMethod.set(route.method, known ?? rule)
      }
    }
  }

  const inPatterns = (method: string, pathname: string): Rule | undefined => {
    for (let g = 0; g < groups.length; g++) {
      const group = groups[g]!
      if (group.prefix !== "" && !isUnder(pathname, group.prefix)) continue
      const patterns = group.byMethod.get(method)
      if (patterns === undefined) continue
      for (let i = 0; i < patterns.length; i++) {
        const pattern = patterns[i]!
        if (pathname.startsWith(pattern.head) && pattern.expression.test(pathname)) {
          return pathname.includes("%") && ENCODED_SLASH.test(pathname) ? undefined : pattern.rule
        }
      }
    }
    return undefined
  }

  const declared = (method: string, pathname: string): Rule | undefined => {
    const byMethod = exact.get(pathname)
    return (byMethod === undefined ? undefined : byMethod.get(method)) ?? inPatterns(method, pathname)
  }

  /** The rule of an undeclared request: exempt from suspension under an exempt prefix. */
  const otherwise = (method: string, pathname: string): Rule => {
    for (let i = 0; i < exemptPrefixes.length; i++) {
      if (isUnder(pathname, exemptPrefixes[i]!)) return undeclaredExempt(method)
    }
    return undeclared(method)
  }

  return {
    ruleOf: (method, pathname) =>
      declared(method, pathname) ?? (method === "HEAD" ? declared("GET", pathname) : undefined) ?? otherwise(method, pathname)
  }
}
