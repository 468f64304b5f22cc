import { buildPath } from "@core/contracts/routes"
import { withProtocolCode } from "./errors.js"
import { gatewayPrefixOf } from "./gateway.js"
import { paginate } from "./pagination.js"
import type { HttpMethod, Query, RequestOptions, Transport } from "./transport.js"

// The types below read a route's declaration structurally (a zod 4 schema's `_zod.input` and
// `_zod.output`, which is what `z.input` and `z.output` read) instead of importing
// `@core/contracts`' `RouteSpec` helpers: the SDK's main entry then names no zod type, so a
// user's `tsc` does not load or check zod's and the contracts' declarations unless the user
// imports `@core/sdk/contracts` or `@core/sdk/routes` (decision 0635).

/** A schema as zod 4 types one. */
interface SchemaLike {
  readonly _zod: { readonly input: unknown; readonly output: unknown }
}

/** A route's declaration as `call` reads it: `RouteSpec` of `@core/sdk/contracts` is one. */
export interface RouteDeclaration {
  readonly method: HttpMethod
  readonly path: string
  readonly request?: {
    readonly body?: SchemaLike
    readonly query?: SchemaLike
    readonly params?: SchemaLike
    readonly contentTypes?: ReadonlyArray<string>
  }
  readonly responses: Readonly<Record<number, unknown>>
}

/** A route's ref as `call` reads it: every ref of `@core/sdk/routes` is one. */
export interface RouteReference {
  readonly method: HttpMethod
  readonly path: string
  readonly contentTypes?: ReadonlyArray<string>
  readonly prefix: string
  /** Phantom: the route's declaration, for types only. */
  readonly "~route"?: RouteDeclaration
}

/**
 * A route `call` reaches: a ref of `@core/sdk/routes` (the same as `@core/contracts/routes`: `AccountRouteRefs.getSession`: data
 * without zod, the declaration as a phantom type), or a declaration itself
 * (`Iam.AccountRoutes.getSession`, or your own `defineRoute`), typed the same way.
 */
export type CallableRoute = RouteReference | RouteDeclaration

/** The declaration behind a route: a declaration itself, or the phantom of a ref. */
type RouteOf<T> = T extends RouteDeclaration ? T
  : T extends { readonly "~route"?: infer R extends RouteDeclaration } ? R
  : never

type RequestPart<R extends RouteDeclaration, K extends "body" | "query" | "params"> = R["request"] extends { readonly [P in K]: infer S extends SchemaLike } ? S
  : undefined
type Input<S> = S extends SchemaLike ? S["_zod"]["input"] : undefined
type Output<S> = S extends SchemaLike ? S["_zod"]["output"] : undefined

/** The names of the `:param` and `{param}` placeholders of a path, as a union type. */
type PathParamNames<P extends string> = P extends `${string}:${infer Rest}` ? Rest extends `${infer Name}/${infer Tail}` ? Name | PathParamNames<`/${Tail}`> : Rest
  : P extends `${string}{${infer Name}}${infer Tail}` ? Name | PathParamNames<Tail>
  : never

type ParamsOutput<R extends RouteDeclaration> = RequestPart<R, "params"> extends SchemaLike ? Output<RequestPart<R, "params">>
  : Record<PathParamNames<R["path"]>, string>

type BodyOfResponse<X> = X extends SchemaLike ? X["_zod"]["output"]
  : X extends { readonly schema: infer S extends SchemaLike } ? S["_zod"]["output"]
  : undefined

type SuccessStatus<R extends RouteDeclaration> = Extract<keyof R["responses"], 200 | 201 | 202 | 203 | 204 | 206 | 301 | 302 | 303 | 307 | 308>

/** One part of a call's input: absent when the route has none, optional when all of it is. */
type Part<K extends string, T> = [T] extends [undefined] ? { readonly [P in K]?: undefined }
  : undefined extends T ? { readonly [P in K]?: T }
  : {} extends T ? { readonly [P in K]?: T }
  : { readonly [P in K]: T }

/** The input of a route whose type is only `RouteSpec` (not a literal declaration): anything goes. */
interface UntypedInput {
  readonly params?: Readonly<Record<string, string | number>>
  readonly query?: Query
  readonly body?: unknown
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * What a call of route `T` (a ref or a declaration) sends, typed from its declaration: `params`
 * named after the path's placeholders, `query` and `body` as the route's schemas accept them, and
 * any `headers`.
 */
export type CallInput<T extends CallableRoute> = InputOf<RouteOf<T>>

type InputOf<R extends RouteDeclaration> = string extends R["path"] ? UntypedInput
  :
    & Part<"params", [PathParamNames<R["path"]>] extends [never] ? undefined : ParamsOutput<R>>
    & Part<"query", Input<RequestPart<R, "query">>>
    & Part<"body", Input<RequestPart<R, "body">>>
    & { readonly headers?: Readonly<Record<string, string>> }

type Ok = 200 | 201 | 202 | 203 | 204 | 206
type OkStatus<R extends RouteDeclaration> = Extract<keyof R["responses"], Ok>

/**
 * What a call of route `T` (a ref or a declaration) resolves to: the body of its 2xx responses
 * (`undefined` for 204). Its redirects are followed by `fetch`, so they count only for a route that answers nothing else.
 */
export type CallResult<T extends CallableRoute> = ResultOf<RouteOf<T>>

type ResultOf<R extends RouteDeclaration> = [OkStatus<R>] extends [never] ? BodyOfResponse<R["responses"][SuccessStatus<R>]>
  : BodyOfResponse<R["responses"][OkStatus<R>]>

/** The item type of a cursor-paged route (`{ data: T[], … }`). */
export type PageItem<T extends CallableRoute> = CallResult<T> extends { readonly data: ReadonlyArray<infer I> } ? I : unknown

/** Per-call options: the transport's, and where the route is reached. */
export interface CallOptions extends Pick<RequestOptions, "signal" | "timeout" | "retry" | "idempotencyKey" | "headers"> {
  /**
   * The prefix the route's path goes under. @default the gateway prefix of the route's service (a
   * ref's `prefix`: `/api/v1/iam` for an identity route); `""` calls a service directly.
   */
  readonly basePath?: string
}

/** `call` on one transport with some options fixed: a resource's view of it. */
export interface RouteCaller {
  readonly call: <T extends CallableRoute>(route: T, input: CallInput<T>, options?: CallOptions) => Promise<CallResult<T>>
  /** Every item of a cursor-paged route, page after page (the `cursor` query parameter). */
  readonly pages: <T extends CallableRoute>(route: T, input: CallInput<T>, options?: CallOptions) => AsyncGenerator<PageItem<T>, void, undefined>
}

const isSpec = (route: CallableRoute): route is RouteDeclaration => "responses" in route

/** Whether the body goes form-encoded: the route's first content type (a ref's, or a declaration's request's) says so. */
const isForm = (route: CallableRoute): boolean =>
  (isSpec(route) ? route.request?.contentTypes : route.contentTypes)?.[0]?.startsWith("application/x-www-form-urlencoded") ?? false

/** An object as form fields: `null` and `undefined` left out, arrays repeating the name. */
const formOf = (body: unknown): URLSearchParams => {
  const fields = new URLSearchParams()
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (value === null || value === undefined) continue
    for (const item of Array.isArray(value) ? value : [value]) fields.append(name, String(item))
  }
  return fields
}

const pathOf = (route: CallableRoute, input: UntypedInput, options: CallOptions): string =>
  `${options.basePath ?? gatewayPrefixOf(route)}${buildPath(route.path, input.params ?? {})}`

/** The transport's options of one call (only those: a resource's options may carry more). */
const requestOf = <T>(route: CallableRoute, input: UntypedInput, options: CallOptions): RequestOptions<T> => {
  const { signal, timeout, retry, idempotencyKey, headers } = options
  const merged = headers === undefined && input.headers === undefined ? undefined : { ...headers, ...input.headers }
  return {
    ...(signal === undefined ? {} : { signal }),
    ...(timeout === undefined ? {} : { timeout }),
    ...(retry === undefined ? {} : { retry }),
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    ...(merged === undefined ? {} : { headers: merged }),
    ...(input.query === undefined ? {} : { query: input.query }),
    ...(input.body === undefined ? {} : { body: isForm(route) ? formOf(input.body) : input.body })
  }
}

/**
 * Calls one catalogued route: fills its path's placeholders (URL-encoded) under the gateway prefix
 * of its service, sends the query, and the body as JSON or, when the route's first content type is
 * form-encoded, as form fields; retries, idempotency keys, timeouts and errors are the transport's.
 * Resolves to the route's success body (`undefined` for 204). A better-auth or OAuth error body
 * gives the `CoreApiError` its `code` and `message`.
 *
 * @example
 * import { AuthorizationRouteRefs } from "@core/sdk/routes"
 * await call(transport, AuthorizationRouteRefs.deleteGrant, { params: { id: "grt_1" } })
 */
export const call = async <T extends CallableRoute>(
  transport: Transport,
  route: T,
  input: CallInput<T>,
  options: CallOptions = {}
): Promise<CallResult<T>> => {
  const untyped = input as UntypedInput
  try {
    return await transport.request<CallResult<T>>(route.method, pathOf(route, untyped, options), requestOf(route, untyped, options))
  } catch (error) {
    throw withProtocolCode(error)
  }
}

/** Every item of a cursor-paged route (GET), page after page. */
export async function* pages<T extends CallableRoute>(
  transport: Transport,
  route: T,
  input: CallInput<T>,
  options: CallOptions = {}
): AsyncGenerator<PageItem<T>, void, undefined> {
  const untyped = input as UntypedInput
  const { query, headers, signal } = requestOf(route, untyped, options)
  try {
    yield* paginate<PageItem<T>>(transport, pathOf(route, untyped, options), {
      ...(query === undefined ? {} : { query }),
      ...(headers === undefined ? {} : { headers }),
      ...(signal === undefined ? {} : { signal })
    })
  } catch (error) {
    throw withProtocolCode(error)
  }
}

/** `call` and `pages` on `transport` with `defaults` under every call's own options. */
export const routeCaller = (transport: Transport, defaults: CallOptions = {}): RouteCaller => ({
  call: (route, input, options) => call(transport, route, input, { ...defaults, ...options }),
  pages: (route, input, options) => pages(transport, route, input, { ...defaults, ...options })
})
