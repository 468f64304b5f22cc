import type { Headers, HttpApp } from "@effect/platform"
import { type Caller, ErrorResponse } from "@core/kernel"
import { Effect, LogLevel, type Scope, type Tracer } from "effect"
import type { Principal } from "./CredentialCache.js"
import type * as RouteRules from "./RouteRules.js"
import { type Match, matchTarget, type Route, type Target } from "./Routes.js"

/** An app inside the gateway: it may fail with anything; the chain turns failures into envelopes. */
export type GatewayApp = HttpApp.Default<unknown, Scope.Scope>

/**
 * A request as every step sees it, whichever transport carries it (Node's own request, or
 * `@effect/platform`'s): client `X-Core-*` headers already gone, `X-Request-Id` the gateway's.
 */
export interface Exchange {
  readonly method: string
  /** The path and query as received. */
  readonly url: string
  readonly headers: Headers.Headers
  readonly remoteAddress: string | undefined
  /** When the request arrived, in milliseconds, from the transport's `Clock` (`TestClock` in tests). */
  readonly now: number
}

/**
 * The status and headers of the response about to be sent, which steps may amend: `set` sets a
 * header over any the response has (a step that must keep the upstream's own asks `has` first),
 * `remove` drops one.
 */
export interface Head {
  readonly status: number
  readonly get: (name: string) => string | undefined
  readonly has: (name: string) => boolean
  readonly set: (name: string, value: string) => void
  readonly remove: (name: string) => void
}

/**
 * What the steps of one request share: the request id and normalized path, the principal once
 * authenticated, the response headers guards add (on the final response, error envelopes
 * included, unless it has its own), the headers they add for the upstream (`undefined` removes
 * one), and what to do once the response's head is known (amend it at once; the returned effect,
 * if any, is the follow-up work, such as dropping cached credentials).
 */
export interface Frame {
  readonly requestId: string
  readonly pathname: string
  /** The route of the gateway's table the request falls under, if any (matched once, before the guards). */
  readonly match: Match | undefined
  /**
   * What the route catalogue says of the request (public, rate-limit class, cross-site check),
   * looked up with the match, by method and path.
   */
  readonly rule: RouteRules.Rule
  /** The gateway's compiled catalogue, for a step that must look up another spelling of the path. */
  readonly rules: RouteRules.Table
  principal: Principal | undefined
  /**
   * The caller the request is made by, as the authentication step resolved it: handed to an
   * in-process upstream as a value (`ForwardedIdentity.handOver`), never signed for it.
   */
  caller: Caller | undefined
  traceId: string | undefined
  /**
   * The gateway's span of the request, when spans are exported (the tracing step): what the later
   * steps' work (identity's lookups, Redis) is recorded under.
   */
  span: Tracer.Span | undefined
  /** The envelope code of the gateway's own refusal of the request, once written (for its span). */
  errorCode: string | undefined
  /**
   * The `WWW-Authenticate` a 401 of this request carries instead of the bearer challenge (a
   * protected resource's, naming its metadata); set by the authentication step.
   */
  challenge: string | undefined
  readonly responseHeaders: Record<string, string>
  readonly upstreamHeaders: Record<string, string | undefined>
  readonly after: Array<(head: Head) => Effect.Effect<void> | undefined>
}

/**
 * A new frame for a request: its route in the routing table and its rule in the compiled
 * catalogue, both found here, once.
 */
export const makeFrame = (
  requestId: string,
  method: string,
  target: Target,
  routes: ReadonlyArray<Route>,
  rules: RouteRules.Table
): Frame => ({
  requestId,
  pathname: target.pathname,
  match: matchTarget(routes, target),
  rule: rules.ruleOf(method, target.pathname),
  rules,
  principal: undefined,
  caller: undefined,
  traceId: undefined,
  span: undefined,
  errorCode: undefined,
  challenge: undefined,
  responseHeaders: {},
  upstreamHeaders: {},
  after: []
})

/** A step that answers the request itself, without a body (the CORS preflight). */
export interface Answer {
  readonly status: number
  readonly headers: Record<string, string>
}

/** What a guard decides: the request goes on (`undefined`), or this answer is sent instead. */
export type Verdict = Answer | undefined

/**
 * One guard of the chain. It decides at once when it can (the common case: no I/O), or answers an
 * effect for work that waits (Redis, the identity service) or refuses (it fails with a kernel
 * error, which becomes the envelope). Guards record what they add in the frame; they run on both
 * transports, and a request that no guard suspends runs no fiber for them.
 */
export type Guard = (exchange: Exchange, frame: Frame) => Verdict | Effect.Effect<Verdict, unknown>

/** A verdict as an effect. */
export const toEffect = (verdict: Verdict | Effect.Effect<Verdict, unknown>): Effect.Effect<Verdict, unknown> =>
  Effect.isEffect(verdict) ? verdict : Effect.succeed(verdict)

/**
 * The guards of the seed's order (6 rate limiter, 7 CORS, 8 tracing, 9 authentication,
 * 10 suspension). A guard left out lets requests through unchanged.
 */
export interface Guards {
  readonly rateLimiter?: Guard
  readonly cors?: Guard
  readonly tracing?: Guard
  readonly authentication?: Guard
  readonly suspension?: Guard
}

/**
 * Set on every response, errors included. `Referrer-Policy` is `strict-origin-when-cross-origin`
 * rather than `no-referrer` so that form posts from Core's own pages keep their `Origin`
 * (docs/decisions/0041).
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "strict-origin-when-cross-origin"
}

/** The guards of `Guards`, in the seed's order, without the ones left out. */
export const ordered = (guards: Guards = {}): ReadonlyArray<Guard> =>
  [guards.rateLimiter, guards.cors, guards.tracing, guards.authentication, guards.suspension].filter(
    (guard): guard is Guard => guard !== undefined
  )

/**
 * Run the guards in order until one answers or refuses; each is called once the previous one let
 * the request on. Synchronous until a guard answers an effect; the rest then runs inside it.
 */
export const enter = (
  guards: ReadonlyArray<Guard>,
  exchange: Exchange,
  frame: Frame,
  from = 0
): Verdict | Effect.Effect<Verdict, unknown> => {
  for (let index = from; index < guards.length; index++) {
    const verdict = guards[index]!(exchange, frame)
    if (Effect.isEffect(verdict)) {
      return Effect.flatMap(
        frame.span === undefined ? verdict : Effect.withParentSpan(verdict, frame.span),
        (answer) => (answer === undefined ? toEffect(enter(guards, exchange, frame, index + 1)) : Effect.succeed(answer))
      )
    }
    if (verdict !== undefined) return verdict
  }
  return undefined
}

/**
 * Apply the frame to a response head: the guards' hooks, the headers they added where the
 * response lacks them, a 401's challenge, then the gateway's own headers over the upstream's
 * (security, `X-Request-Id`, `Server-Timing`). Answers the hooks' follow-up work.
 */
export const finish = (frame: Frame, head: Head, durationMs: number): ReadonlyArray<Effect.Effect<void>> => {
  let followUp: Array<Effect.Effect<void>> | undefined
  for (const hook of frame.after) {
    const work = hook(head)
    if (work !== undefined) (followUp ??= []).push(work)
  }
  const added = frame.responseHeaders
  for (const name in added) {
    if (!head.has(name)) head.set(name, added[name]!)
  }
  // Every 401 carries a challenge (RFC 7235 §3.1), the route's own when it has one (decision 0605).
  if (head.status === 401) {
    if (frame.challenge !== undefined) head.set("www-authenticate", frame.challenge)
    else if (!head.has("www-authenticate")) head.set("www-authenticate", ErrorResponse.BEARER_CHALLENGE)
  }
  for (const name in SECURITY_HEADERS) head.set(name, SECURITY_HEADERS[name]!)
  head.set("x-request-id", frame.requestId)
  head.set("server-timing", `total;dur=${durationMs}`)
  return followUp ?? NOTHING
}

const NOTHING: ReadonlyArray<Effect.Effect<void>> = []

/** Milliseconds since `start` (a `performance.now()`), rounded to the microsecond. */
export const elapsedMillis = (start: number): number => Math.round((performance.now() - start) * 1_000) / 1_000

/** The envelope of a refusal (a kernel error); `undefined` for anything else (a defect: 500). */
export const describeRefusal = (error: unknown): ErrorResponse.ErrorDescription | undefined =>
  ErrorResponse.isCoreError(error) ? ErrorResponse.describe(error) : undefined

/** The one log line of a request (`request` with method, path without query, status, duration, ids). */
export const logRequest = (method: string, frame: Frame, status: number, durationMs: number): Effect.Effect<void> =>
  Effect.logInfo("request").pipe(
    Effect.annotateLogs({
      method,
      path: frame.pathname,
      status,
      durationMs,
      requestId: frame.requestId,
      ...(frame.traceId === undefined ? {} : { traceId: frame.traceId })
    })
  )

/** Whether a minimum log level lets the `request` line through (it is logged at Info). */
export const logsRequests = (minimum: LogLevel.LogLevel): boolean => !LogLevel.greaterThan(minimum, LogLevel.Info)
