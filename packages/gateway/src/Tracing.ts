import { Telemetry as Spans, TraceContext } from "@core/kernel"
import type { Guard } from "./Middleware.js"

/** The response header carrying the trace id. */
export const TRACE_ID_HEADER = "x-core-trace-id"

/**
 * Step 8: tracing, through the one W3C propagator (`TraceContext`: `traceparent`, `tracestate`,
 * `baggage`). A valid inbound `traceparent` is continued (its trace id and sampled flag kept),
 * otherwise a new trace starts; the upstream receives (through the frame) a `traceparent` naming
 * the gateway's span as its parent, with the inbound `tracestate` and `baggage`; the request's log
 * line carries `traceId`, and the response `X-Core-Trace-Id`.
 *
 * With `telemetry` (spans exported), the gateway's span is a real `http.server` span named from the
 * catalogue's route template (`GET /api/v1/platforms/{platformId}`), ended when the response's head
 * is known with its status, the caller's tenant and, for a 5xx, the error. Without it no span is
 * built: the hop only gets a new span id.
 */
export const guard = (telemetry: Spans.TelemetryService | undefined): Guard =>
  telemetry === undefined ? untraced : traced(telemetry)

const untraced: Guard = (request, frame) => {
  const traceId = TraceContext.continueUntraced(request.headers, frame.upstreamHeaders)
  frame.traceId = traceId
  frame.responseHeaders[TRACE_ID_HEADER] = traceId
  return undefined
}

const traced = (telemetry: Spans.TelemetryService): Guard => (request, frame) => {
  const route = frame.rule.path === undefined ? undefined : Spans.templateOf(frame.rule.path)
  const { inbound, span } = Spans.startServerSpan(telemetry, request.method, route, request.headers, frame.requestId)
  frame.traceId = span.traceId
  frame.span = span
  frame.responseHeaders[TRACE_ID_HEADER] = span.traceId
  TraceContext.inject(inbound, span, frame.upstreamHeaders)
  frame.after.push((head) => {
    Spans.recordCaller(span, frame.caller)
    if (frame.errorCode !== undefined) span.attribute(Spans.ERROR_CODE, frame.errorCode)
    Spans.endServerSpan(span, head.status)
    return undefined
  })
  return undefined
}

/** The tracing step without exported spans (what `guard(undefined)` answers). */
export const middleware: Guard = untraced
