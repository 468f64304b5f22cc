import { randomBytes } from "node:crypto"
import type { Guard } from "./Middleware.js"

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

/** Render a `traceparent` (version `00`). */
export const format = (context: TraceContext): string => `00-${context.traceId}-${context.parentId}-${context.flags}`

/**
 * Step 8: tracing. A valid inbound `traceparent` is honoured (its trace id kept, its sampled flag
 * kept); otherwise a new trace starts. The gateway is a new span: the upstream receives (through
 * the frame) a `traceparent` with the same trace id and the gateway's span id (and `tracestate`
 * unchanged), the request's log line carries `traceId`, and the response `X-Core-Trace-Id`.
 */
export const middleware: Guard = (request, frame) => {
  const inbound = parse(request.headers.traceparent)
  const ids = randomHex(inbound === undefined ? 24 : 8)
  const traceId = inbound?.traceId ?? ids.slice(16)
  frame.traceId = traceId
  frame.responseHeaders[TRACE_ID_HEADER] = traceId
  frame.upstreamHeaders.traceparent = format({ traceId, parentId: ids.slice(0, 16), flags: inbound?.flags ?? "01" })
  if (inbound === undefined) frame.upstreamHeaders.tracestate = undefined
  return undefined
}
