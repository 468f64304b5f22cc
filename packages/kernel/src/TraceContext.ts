/**
 * W3C trace context on every hop (https://www.w3.org/TR/trace-context/, https://www.w3.org/TR/baggage/):
 * OpenTelemetry's own propagators (`traceparent`, `tracestate`, `baggage`), for the requests Core
 * receives and the ones it sends, whether or not spans are exported (`Telemetry`).
 */
import {
  type Context as OtelContext,
  isSpanContextValid,
  ROOT_CONTEXT,
  type SpanContext,
  type TextMapGetter,
  type TextMapSetter,
  trace,
  TraceFlags
} from "@opentelemetry/api"
import { CompositePropagator, parseTraceParent, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core"
import { randomBytes } from "node:crypto"

export type { SpanContext } from "@opentelemetry/api"

/** The one propagator of every hop: W3C trace context and W3C baggage. */
export const propagator = new CompositePropagator({
  propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()]
})

/** Headers as Node and `@effect/platform` keep them (lower-case names). */
export type HeaderRecord = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const getter: TextMapGetter<HeaderRecord> = {
  get: (carrier, key) => carrier[key] as string | Array<string> | undefined,
  keys: (carrier) => Object.keys(carrier)
}

const setter: TextMapSetter<Record<string, string | undefined>> = {
  set: (carrier, key, value) => {
    carrier[key] = value
  }
}

/** The trace context a request carries (its remote span and baggage), or the empty one. */
export const extract = (headers: HeaderRecord): OtelContext => propagator.extract(ROOT_CONTEXT, headers, getter)

/** The remote span of an extracted context, when it is valid (no all-zero ids). */
export const remoteOf = (context: OtelContext): SpanContext | undefined => {
  const span = trace.getSpanContext(context)
  return span !== undefined && isSpanContextValid(span) ? span : undefined
}

/**
 * The span a `traceparent` value names, read by the propagator's own parser without building a
 * context (the hot path of a hop that records no span); `undefined` when it is not valid.
 */
export const parse = (header: string | ReadonlyArray<string> | undefined): SpanContext | undefined => {
  const value = typeof header === "string" ? header : header?.[0]
  return value === undefined || value.length > 512 ? undefined : parseTraceParent(value) ?? undefined
}

/** The trace id a request's `traceparent` names, when it is valid. */
export const traceIdOf = (headers: HeaderRecord): string | undefined => parse(headers.traceparent)?.traceId

/** A hop's own span, as the next hop is to see it. */
export interface Hop {
  readonly traceId: string
  readonly spanId: string
  readonly sampled: boolean
}

/**
 * Write the context of the next hop into `headers`: `traceparent` naming `hop` as the parent, the
 * inbound `tracestate` and `baggage` of `inbound` kept (a `tracestate` without a valid inbound
 * `traceparent` is dropped, as the specification asks).
 */
export const inject = (inbound: OtelContext, hop: Hop, headers: Record<string, string | undefined>): void => {
  const remote = trace.getSpanContext(inbound)
  headers.tracestate = undefined
  const child: SpanContext = {
    traceId: hop.traceId,
    spanId: hop.spanId,
    traceFlags: hop.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
    ...(remote?.traceState === undefined ? {} : { traceState: remote.traceState })
  }
  propagator.inject(trace.setSpanContext(inbound, child), headers, setter)
}

const POOL_BYTES = 8192
let pool = randomBytes(POOL_BYTES)
let offset = 0

/** `bytes` random bytes as hex, from a pool filled 8 KiB at a time (one CSPRNG call per ~340 traces). */
const randomHex = (bytes: number): string => {
  if (offset + bytes > POOL_BYTES) {
    pool = randomBytes(POOL_BYTES)
    offset = 0
  }
  const hex = pool.toString("hex", offset, offset + bytes)
  offset += bytes
  return hex
}

/** A new span id (8 random bytes): what a hop that records no span names itself with. */
export const newSpanId = (): string => randomHex(8)

/**
 * The hop of a request that records no span, written into the upstream's `headers`: the inbound
 * trace continued (its trace id and flags) under a new span id, or a new sampled trace (whose
 * `tracestate` is dropped, as the specification asks of one without a valid parent). The inbound
 * `tracestate` and `baggage` travel on as the request's own headers. Answers the trace id.
 */
export const continueUntraced = (inbound: HeaderRecord, headers: Record<string, string | undefined>): string => {
  const remote = parse(inbound.traceparent)
  if (remote === undefined) {
    // One draw from the pool for both ids: 8 bytes of span id, then 16 of trace id.
    const ids = randomHex(24)
    const traceId = ids.slice(16)
    headers.traceparent = `00-${traceId}-${ids.slice(0, 16)}-01`
    headers.tracestate = undefined
    return traceId
  }
  headers.traceparent = `00-${remote.traceId}-${newSpanId()}-${remote.traceFlags.toString(16).padStart(2, "0")}`
  return remote.traceId
}
