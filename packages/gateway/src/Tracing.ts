import { Headers, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import type { GatewayMiddleware } from "./Middleware.js"

/** The response header carrying the trace id. */
export const TRACE_ID_HEADER = "x-core-trace-id"

/** A W3C trace context (https://www.w3.org/TR/trace-context/). */
export interface TraceContext {
  readonly traceId: string
  readonly parentId: string
  readonly flags: string
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/
const ZERO_TRACE = "0".repeat(32)
const ZERO_SPAN = "0".repeat(16)

/**
 * Parse a `traceparent` header: version `00` exactly as specified, later versions by their
 * first four fields; `ff`, all-zero ids and malformed values are invalid (`undefined`).
 */
export const parse = (header: string | undefined): TraceContext | undefined => {
  if (header === undefined || header.length > 512) return undefined
  const found = TRACEPARENT.exec(header.trim())
  if (found === null) return undefined
  const [, version, traceId, parentId, flags, rest] = found
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined
  if (traceId === ZERO_TRACE || parentId === ZERO_SPAN) return undefined
  return { traceId, parentId, flags }
}

/** Render a `traceparent` (version `00`). */
export const format = (context: TraceContext): string => `00-${context.traceId}-${context.parentId}-${context.flags}`

/**
 * Step 8: tracing. A valid inbound `traceparent` is honoured (its trace id kept, its sampled flag
 * kept); otherwise a new trace starts. The gateway is a new span: the upstream receives a
 * `traceparent` with the same trace id and the gateway's span id (and `tracestate` unchanged),
 * every log line inside carries `traceId`, and the response carries `X-Core-Trace-Id`.
 */
export const middleware: GatewayMiddleware = (app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const inbound = parse(request.headers.traceparent)
    const traceId = inbound?.traceId ?? randomBytes(16).toString("hex")
    const outbound = format({ traceId, parentId: randomBytes(8).toString("hex"), flags: inbound?.flags ?? "01" })
    const headers = inbound === undefined
      ? Headers.remove(Headers.set(request.headers, "traceparent", outbound), "tracestate")
      : Headers.set(request.headers, "traceparent", outbound)
    return app.pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, request.modify({ headers })),
      Effect.annotateLogs("traceId", traceId),
      Effect.map((response) => HttpServerResponse.setHeader(response, TRACE_ID_HEADER, traceId))
    )
  })
