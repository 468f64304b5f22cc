import type { z } from "zod"
import type { Permission } from "./Permissions.js"

/** HTTP methods a route may use. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS"

/**
 * Who may call a route, checked by the kernel before the handler runs:
 * - `public`: anyone; credentials are not needed (a handler may still look at them).
 * - `session-cookie`: a signed-in user whose session travels in the `core.session_token` cookie
 *   (the web pages and `org-setup`, which browsers call).
 * - `caller`: any authenticated caller whose kind is in `callers` (default: every kind — a user
 *   session by bearer or cookie, an API key, the static service key).
 * - `operator`: the static service key or a member of the operator organization.
 * - `service`: the static service key only.
 */
export type RouteAuth = "public" | "session-cookie" | "caller" | "operator" | "service"

/** The kinds of caller a `caller` route may accept. */
export type CallerKind = "user" | "apikey" | "service"

/** Every caller kind, the default of a `caller` route. */
export const CALLER_KINDS: ReadonlyArray<CallerKind> = ["user", "apikey", "service"]

/**
 * The gateway's rate-limit class of a route: `default` (600 a minute per address and path),
 * `credentials` (10 a minute: sign-up, sign-in, magic links, password resets) or `exempt`
 * (governed otherwise, as the device-token poll is by `slow_down`).
 */
export type RateLimitClass = "default" | "credentials" | "exempt"

/**
 * How a route's records are scoped to a tenant: by the organization or the platform the caller
 * acts in. Another tenant's record answers 404, never 403 (its existence is not revealed).
 */
export type TenantScope = "organization" | "platform"

/** A response described beyond its JSON schema: another media type, no body, or headers. */
export interface ResponseSpec {
  readonly description?: string
  /** The body's schema; absent for a response without a body (or a binary one). */
  readonly schema?: z.ZodType
  /** @default "application/json" when there is a schema */
  readonly contentType?: string
  /** Response headers: name → description. */
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * One response of a route: its JSON body's schema, a `ResponseSpec`, or `null` — no body for a
 * success, the error envelope for a status of 400 and above.
 */
export type RouteResponse = z.ZodType | ResponseSpec | null

/** The parts of a request a route validates, each a zod schema (objects for query, params, headers). */
export interface RouteRequest {
  readonly body?: z.ZodType
  readonly query?: z.ZodType
  readonly params?: z.ZodType
  readonly headers?: z.ZodType
  /** Media types the body may come in. @default ["application/json"] */
  readonly contentTypes?: ReadonlyArray<string>
  /**
   * A raw body (one without a `body` schema, as the deploy's upload) may be left out: the route
   * answers without one too. A `body` schema that accepts `undefined` (`.optional()`) says so itself.
   * @default false
   */
  readonly optionalBody?: boolean
}

/**
 * A route as plain data (ts-rest style), shared by the server that serves it, the SDK that calls
 * it and the OpenAPI document that describes it. Paths take `:param` or `{param}` placeholders.
 */
export interface RouteSpec {
  readonly method: HttpMethod
  readonly path: string
  readonly summary: string
  readonly description?: string
  readonly auth: RouteAuth
  /** For `caller` routes: the kinds of caller accepted. @default every kind */
  readonly callers?: ReadonlyArray<CallerKind>
  /**
   * For a `session-cookie` route: the route a bearer token or an API key calls instead (method and
   * path, e.g. `"POST /api/auth/organization/create"`), named in the 401 such a caller gets here.
   */
  readonly bearerAlternative?: string
  /** The permission a caller needs in the organization the route acts on. */
  readonly permission?: Permission
  /** How the route's records are scoped to a tenant (another tenant's answer 404). */
  readonly tenant?: TenantScope
  /** The gateway's rate-limit class. @default "default" */
  readonly rateLimit?: RateLimitClass
  /**
   * `"exempt"`: the route stays open to the callers of a suspended platform, so that a suspended
   * tenant can still leave and pay (identity's sign-out and get-session; docs/gateway.md; decision 0163).
   * Absent: such callers get 451 `PLATFORM_SUSPENDED` at the gateway. A whole service without a
   * catalogue (billing) is exempt by its entry in the gateway's routing table instead.
   */
  readonly suspension?: "exempt"
  /**
   * A successful answer to this route (a write: never set on `GET`) changes the caller's tenant,
   * role or permissions (organization setup and membership, the active organization, roles,
   * grants), so the gateway drops the caller's cached credential answers at once (decision 0163).
   * Other members it affects see the change within the cache's lifetime.
   */
  readonly changesTenant?: true
  /**
   * `"service"`: the service itself refuses a write that the session cookie carries from another
   * site, in its own protocol (the OAuth device approval answers 403 `invalid_request`), so the
   * gateway leaves that check to it instead of answering its own 403 envelope (decision 0609).
   * @default the gateway checks every write (any method but GET, HEAD and OPTIONS)
   */
  readonly crossSite?: "service"
  /** The most bytes a request body may have. @default 1 MiB */
  readonly bodyLimit?: number
  readonly request?: RouteRequest
  /** Responses by status. */
  readonly responses: Readonly<Record<number, RouteResponse>>
  readonly tags?: ReadonlyArray<string>
  /** @default the key in a `defineRoutes` record, else derived from method and path */
  readonly operationId?: string
  readonly deprecated?: boolean
}

/**
 * Declare a route, keeping its literal types (method, path, schemas by status) for servers and clients.
 *
 * @example
 * const getPlatform = defineRoute({
 *   method: "GET", path: "/api/v1/platforms/:platformId", summary: "Read a platform", auth: "caller",
 *   request: { params: z.object({ platformId: z.string().min(1) }) },
 *   responses: { 200: PlatformRecord, 404: null }
 * })
 */
export const defineRoute = <const R extends RouteSpec>(route: R): R => route

/** Declare a named catalogue of routes; the names become the OpenAPI operation ids. */
export const defineRoutes = <const T extends Readonly<Record<string, RouteSpec>>>(routes: T): T => routes

type Part<R extends RouteSpec, K extends keyof RouteRequest> = R["request"] extends { readonly [P in K]: infer S extends z.ZodType }
  ? S
  : undefined

type Input<S> = S extends z.ZodType ? z.input<S> : undefined
type Output<S> = S extends z.ZodType ? z.output<S> : undefined

/** What a client sends as the body of a route. */
export type BodyInput<R extends RouteSpec> = Input<Part<R, "body">>
/** The body a server handles, once parsed (defaults applied). */
export type BodyOutput<R extends RouteSpec> = Output<Part<R, "body">>
/** What a client sends as the query of a route. */
export type QueryInput<R extends RouteSpec> = Input<Part<R, "query">>
/** The query a server handles, once parsed. */
export type QueryOutput<R extends RouteSpec> = Output<Part<R, "query">>
/** The path parameters of a route, parsed when it declares their schema, else by name from its path. */
export type ParamsOutput<R extends RouteSpec> = Part<R, "params"> extends z.ZodType
  ? z.output<Part<R, "params">>
  : Record<PathParamNames<R["path"]>, string>

/** The names of the `:param` and `{param}` placeholders of a path, as a union type. */
export type PathParamNames<P extends string> = P extends `${string}:${infer Rest}`
  ? Rest extends `${infer Name}/${infer Tail}` ? Name | PathParamNames<`/${Tail}`> : Rest
  : P extends `${string}{${infer Name}}${infer Tail}` ? Name | PathParamNames<Tail>
  : never

type BodyOfResponse<X> = X extends z.ZodType ? z.output<X> : X extends { readonly schema: infer S extends z.ZodType } ? z.output<S> : undefined

/** The body of one response of a route. */
export type ResponseBody<R extends RouteSpec, S extends keyof R["responses"]> = BodyOfResponse<R["responses"][S]>

/** The statuses of a route's successful responses. */
export type SuccessStatus<R extends RouteSpec> = Extract<keyof R["responses"], 200 | 201 | 202 | 203 | 204 | 206 | 301 | 302 | 303 | 307 | 308>

/** The body of any successful response of a route. */
export type SuccessBody<R extends RouteSpec> = ResponseBody<R, SuccessStatus<R>>

const PLACEHOLDER = /:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\}/g

/** The names of a path's placeholders, in order. */
export const pathParamNames = (path: string): Array<string> =>
  Array.from(path.matchAll(PLACEHOLDER), (match) => match[1] ?? match[2])

/** A path in OpenAPI form: `:param` becomes `{param}`. */
export const toOpenApiPath = (path: string): string =>
  path.replace(PLACEHOLDER, (_, colon: string | undefined, brace: string | undefined) => `{${colon ?? brace}}`)

/**
 * Fill a path's placeholders with URL-encoded values.
 *
 * @example buildPath("/api/v1/platforms/:platformId", { platformId: "plt_1" }) // "/api/v1/platforms/plt_1"
 * @throws TypeError when a placeholder has no value (a programming error).
 */
export const buildPath = (path: string, params: Readonly<Record<string, string | number>>): string =>
  path.replace(PLACEHOLDER, (_, colon: string | undefined, brace: string | undefined) => {
    const name = (colon ?? brace) as string
    const value = params[name]
    if (value === undefined) throw new TypeError(`Missing path parameter ${name} for ${path}`)
    return encodeURIComponent(String(value))
  })

/** Whether a status is a success (1xx–3xx). */
export const isSuccessStatus = (status: number): boolean => status < 400

/** The caller kinds a route accepts (none for `public`; users only for `session-cookie`). */
export const acceptedCallers = (route: RouteSpec): ReadonlyArray<CallerKind> => {
  switch (route.auth) {
    case "public":
      return []
    case "session-cookie":
      return ["user"]
    case "caller":
      return route.callers ?? CALLER_KINDS
    case "operator":
      return ["user", "service"]
    case "service":
      return ["service"]
  }
}

/** The status a route answers on success: its one declared 2xx (or 3xx), else 200. */
export const successStatusOf = (route: RouteSpec): number => {
  for (const key of Object.keys(route.responses)) {
    const status = Number(key)
    if (status >= 200 && status < 400) return status
  }
  return 200
}
