import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import {
  acceptedCallers,
  type BodyOutput,
  notFoundMessage,
  type ParamsOutput,
  pathParamNames,
  type QueryOutput,
  type RouteSpec,
  type SuccessBody,
  successStatusOf
} from "@core/contracts"
import { Effect, Option } from "effect"
import type { z } from "zod"
import * as Body from "./Body.js"
import { type ApiKeyCaller, type Caller, Callers, type ServiceCaller, type UserCaller } from "./Caller.js"
import { authenticationRequired, isAccepted, requireOperator } from "./Policy.js"
import { type Forbidden, type InvalidJson, NotFound, type PayloadTooLarge, Unauthorized, UnsupportedMediaType, type ValidationError } from "./Errors.js"
import { CoreConfig } from "./Config.js"
import * as ErrorResponse from "./ErrorResponse.js"
import * as RequestContext from "./RequestContext.js"
import * as Telemetry from "./Telemetry.js"
import { decode } from "./Validation.js"

type KindOf<K> = K extends "user" ? UserCaller : K extends "apikey" ? ApiKeyCaller : K extends "service" ? ServiceCaller : never

/** The caller a route's handler receives, narrowed by its declaration. */
export type CallerOf<R extends RouteSpec> = R["auth"] extends "public" ? undefined
  : R["auth"] extends "session-cookie" ? UserCaller
  : R["auth"] extends "service" ? ServiceCaller
  : R["auth"] extends "operator" ? UserCaller | ServiceCaller
  : R extends { readonly callers: ReadonlyArray<infer K> } ? KindOf<K>
  : Caller

/** What a handler receives: the caller and the decoded parts of the request. */
export interface Input<R extends RouteSpec> {
  readonly caller: CallerOf<R>
  readonly body: BodyOutput<R>
  readonly query: QueryOutput<R>
  readonly params: ParamsOutput<R>
  /** The request itself, for the few handlers that answer with cookies or redirects. */
  readonly request: HttpServerRequest.HttpServerRequest
}

/**
 * What a handler answers: the declared success body (encoded as JSON with the route's success
 * status, or an empty 204), or a whole response (redirects, cookies, pages).
 */
export type Answer<R extends RouteSpec> =
  | SuccessBody<R>
  | HttpServerResponse.HttpServerResponse
  | (undefined extends SuccessBody<R> ? void : never)

/** One catalogued route and its handler, ready to be served. */
export interface Handler<E = unknown, R = unknown> {
  readonly route: RouteSpec
  readonly run: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext | Callers>
  /** The protocol whose bodies its failures take (better-auth, OAuth, pages); else the router's. */
  readonly renderer?: ErrorResponse.Renderer
}

/**
 * Handlers whose failures answer in a protocol's own bodies, whatever list they are served in
 * (identity serves better-auth's, OAuth's, the pages' and the envelope's routes as one list).
 *
 * @example
 * export const AccountsHandlers = Route.rendered(BetterAuth.renderer, [Route.handle(…), …])
 */
export const rendered = <const H extends ReadonlyArray<Handler<any, any>>>(renderer: ErrorResponse.Renderer, handlers: H): H =>
  handlers.map((handler) => ({ ...handler, renderer })) as unknown as H

/** The effect serving a handler with failures rendered by its own renderer, else `fallback`. */
export const program = (handler: Handler<any, any>, fallback: ErrorResponse.Renderer | undefined) =>
  Effect.catchAllCause(handler.run, ErrorResponse.handleCauseWith(handler.renderer ?? fallback ?? ErrorResponse.envelopeRenderer))

/** What the runner itself may fail with before a handler runs. */
export type RouteError = Unauthorized | Forbidden | NotFound | ValidationError | InvalidJson | PayloadTooLarge | UnsupportedMediaType

/**
 * Decode a route's path parameters with its contract. A value the schema refuses (`plt_x`, `job_1`,
 * a NUL) names nothing, so it answers the 404 of an unknown record, in the same words
 * (`notFoundMessage`: "Platform not found"), never a 400 (decision 0567). The first refused
 * parameter in the path's order names the message; one its contract marks as input stays a 400.
 */
const decodeParams = (route: RouteSpec, schema: z.ZodType, values: Readonly<Record<string, string | undefined>>) =>
  Effect.mapError(decode(schema, values, "params"), (error) => {
    const refused = new Set(error.issues.map((issue) => issue.path.split(".")[0]))
    const names = pathParamNames(route.path)
    const param = names.find((name) => refused.has(name)) ?? names[0] ?? ""
    const message = notFoundMessage(route, param)
    // A parameter the request writes (a secret's name) or a token stays a 400.
    return message === undefined ? error : new NotFound({ message })
  })

const FORM = "application/x-www-form-urlencoded"

const mediaTypeOf = (header: string | undefined): string => (header ?? "").split(";")[0].trim().toLowerCase()

/** Read a body in one of the route's media types (JSON by default; form-encoded where declared). */
/**
 * Whether a request carries no body at all: a web `Request` without one, or on Node no
 * `Content-Length` above 0 and no `Transfer-Encoding`.
 */
const hasNoBody = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const source = request.source as { readonly body?: unknown; readonly bodyUsed?: unknown } | null
  if (typeof source === "object" && source !== null && "bodyUsed" in source && "body" in source) return source.body === null
  const length = request.headers["content-length"]
  return request.headers["transfer-encoding"] === undefined && (length === undefined || length.trim() === "0")
}

/** The routes whose body schema accepts no body at all (`.optional()`), found once per route. */
const optionalBodies = new WeakMap<RouteSpec, boolean>()
const acceptsNoBody = (route: RouteSpec): boolean => {
  let known = optionalBodies.get(route)
  if (known === undefined) {
    known = route.request?.body?.safeParse(undefined).success === true
    optionalBodies.set(route, known)
  }
  return known
}

const readBody = (route: RouteSpec, request: HttpServerRequest.HttpServerRequest) => {
  const schema = route.request?.body
  if (schema === undefined) return Effect.succeed(undefined)
  // A POST without a body to a route whose body is optional (the seed's POST reads) reads as none.
  if (hasNoBody(request) && acceptsNoBody(route)) return decode(schema, undefined, "body")
  const limit = route.bodyLimit === undefined ? undefined : { limit: route.bodyLimit }
  const types = route.request?.contentTypes ?? ["application/json"]
  const type = mediaTypeOf(request.headers["content-type"])
  if (type === FORM && types.includes(FORM)) {
    // A repeated name becomes an array, as in a query, so that a contract of strings refuses it.
    return Effect.flatMap(Body.bytes(limit), (bytes) =>
      decode(schema, Body.searchParamsRecord(`?${new TextDecoder().decode(bytes)}`), "body"))
  }
  if (types.includes("application/json") && (type === "application/json" || !types.includes(FORM))) {
    return Body.json(schema, limit)
  }
  return Effect.fail(new UnsupportedMediaType({ message: `Content-Type must be one of ${types.join(", ")}` }))
}

const wrongKind = (route: RouteSpec) =>
  new Unauthorized({
    message: route.auth === "session-cookie" || route.callers?.length === 1 && route.callers[0] === "user"
      ? "A signed-in user is required"
      : "These credentials cannot call this route"
  })

/**
 * A `session-cookie` route without a session cookie: 401. A caller that did present a bearer token
 * or an API key is told the route takes the cookie only, and which route to call instead.
 */
const cookieRequired = (route: RouteSpec, request: HttpServerRequest.HttpServerRequest) =>
  Effect.flatMap(Callers, (callers) =>
    Effect.flatMap(
      Effect.orElseSucceed(callers.resolve(request), () => undefined),
      (other) =>
        Effect.fail(
          other === undefined ? authenticationRequired : new Unauthorized({
            message: "This route takes the session cookie only, not a bearer token or an API key" +
              (route.bearerAlternative === undefined ? "" : `; with a bearer token, use ${route.bearerAlternative}`)
          })
        )
    ))

/** Resolve the caller a route needs: 401 without or with bad credentials, 403 for a non-operator. */
const callerFor = (
  route: RouteSpec,
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<Caller | undefined, Unauthorized | Forbidden, Callers> => {
  if (route.auth === "public") return Effect.succeed(undefined)
  return Effect.flatMap(Callers, (callers) =>
    Effect.flatMap(callers.resolve(request, { cookieOnly: route.auth === "session-cookie" }), (caller): Effect.Effect<
      Caller,
      Unauthorized | Forbidden,
      Callers
    > => {
      if (caller === undefined) return route.auth === "session-cookie" ? cookieRequired(route, request) : Effect.fail(authenticationRequired)
      // An authenticated caller that is not the operator or the service: 403, as for a non-operator user.
      if (route.auth === "operator") return Effect.as(requireOperator(caller), caller)
      if (!isAccepted(caller, acceptedCallers(route))) return Effect.fail(wrongKind(route))
      return Effect.succeed(caller)
    }))
}

const encode = (status: number, value: unknown): HttpServerResponse.HttpServerResponse => {
  if (HttpServerResponse.isServerResponse(value)) return value
  if (status === 204 || value === undefined) return HttpServerResponse.empty({ status: status === 200 ? 204 : status })
  return HttpServerResponse.unsafeJson(value, { status })
}

/**
 * Serve a catalogued route: resolve the caller its `auth` allows (401/403), decode its params
 * (a value the contract refuses names nothing: 404), query and body with the contract (400 with the issues), run the handler, and encode the answer
 * with the declared success status. A service's `Http.ts` is a list of these.
 *
 * @example
 * Route.handle(Iam.AuthorizationRoutes.listApiKeys, ({ caller, query }) =>
 *   Effect.flatMap(ApiKeys, (keys) => keys.list(caller, query.organizationId)))
 */
export const handle = <const R extends RouteSpec, E, Req>(
  route: R,
  handler: (input: Input<R>) => Effect.Effect<Answer<R>, E, Req>
): Handler<E | RouteError, Req> => {
  const status = successStatusOf(route)
  const schemas = route.request
  const run = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    // Who calls comes first: without valid credentials the answer is 401, whatever the input.
    const caller = yield* callerFor(route, request)
    const params = schemas?.params === undefined
      ? yield* HttpRouter.params
      : yield* Effect.flatMap(HttpRouter.params, (values) => decodeParams(route, schemas.params!, values))
    const query = schemas?.query === undefined
      ? undefined
      : yield* decode(schemas.query, Body.searchParamsRecord(request.url), "query")
    const body = yield* readBody(route, request)
    const answer = yield* inRequestContext(request, handler({ caller, body, query, params, request } as unknown as Input<R>))
    return encode(status, answer)
  })
  return { route, run }
}

/**
 * Run a handler in its request context (request id, trace id, client address, user agent), so
 * that domain code records audit facts without reading HTTP. One already provided with the client's
 * address is kept as it is (the Node runner provides it with the request: no second context).
 */
const inRequestContext = <A, E, R>(request: HttpServerRequest.HttpServerRequest, effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.serviceOption(RequestContext.RequestContext), (known) =>
    RequestContext.isComplete(known)
      ? effect
      : Effect.flatMap(Effect.serviceOption(CoreConfig), (config) =>
        Effect.provideService(
          effect,
          RequestContext.RequestContext,
          RequestContext.ofRequest(request, known, Option.isSome(config) && config.value.trustProxy)
        )))

/** A route's path in the router's form: `{param}` becomes `:param` (the Node runner's table reads it too). */
export const routerPath = (path: string) => path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ":$1") as HttpRouter.PathInput

/** The requirements of any handler in a list. */
export type RequirementsOf<H> = H extends Handler<any, infer R> ? R : never

/** The paths a route is served at: its declared path, and without `base` when it lies under it. */
export const pathsOf = (path: string, base: string | undefined): ReadonlyArray<string> => {
  if (base === undefined || !(path === base || path.startsWith(`${base}/`))) return [path]
  const rest = path.slice(base.length)
  return [path, rest === "" ? "/" : rest]
}

/** How a list of handlers is served. */
export interface RouterOptions {
  /** The protocol's error renderer. @default the kernel's envelope */
  readonly renderer?: ErrorResponse.Renderer
  /**
   * The documented base of a service behind the gateway (`/api/v1/platforms`): its routes are also
   * served with the base stripped, the path the gateway forwards (docs/architecture.md).
   */
  readonly base?: string
}

/**
 * The router of a list of handlers, each at its declared method and path, failures answered by the
 * renderer (the envelope by default; better-auth, OAuth and pages supply their own).
 */
export const router = <const H extends ReadonlyArray<Handler<any, any>>>(
  handlers: H,
  options?: RouterOptions
): HttpRouter.HttpRouter<never, Exclude<RequirementsOf<H[number]>, HttpRouter.RouteContext> | Callers> => {
  let router = HttpRouter.empty as HttpRouter.HttpRouter<unknown, unknown>
  for (const handler of handlers) {
    const run = Telemetry.traced(handler.route.path, program(handler, options?.renderer))
    for (const path of pathsOf(handler.route.path, options?.base)) {
      router = HttpRouter.route(handler.route.method)(router, routerPath(path), run) as HttpRouter.HttpRouter<unknown, unknown>
    }
  }
  return HttpRouter.catchAllCause(
    router,
    ErrorResponse.handleCauseWith(options?.renderer ?? ErrorResponse.envelopeRenderer)
  ) as unknown as HttpRouter.HttpRouter<never, Exclude<RequirementsOf<H[number]>, HttpRouter.RouteContext> | Callers>
}

/** The routes a list of handlers serves, for the catalogue-coverage tests. */
export const served = (handlers: ReadonlyArray<Handler<any, any>>): ReadonlyArray<RouteSpec> => handlers.map((h) => h.route)

/** A JSON answer with extra headers (`Cache-Control: no-store` on answers about one caller, say). */
export const json = (
  body: unknown,
  options?: { readonly status?: number; readonly headers?: Readonly<Record<string, string>> }
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson(body, { status: options?.status ?? 200, headers: options?.headers ?? {} })
