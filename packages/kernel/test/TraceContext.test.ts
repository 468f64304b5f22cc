import { TraceFlags } from "@opentelemetry/api"
import { describe, expect, it } from "vitest"
import { TraceContext } from "../src/index.js"

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
const SPAN = "00f067aa0ba902b7"

describe("TraceContext: the one W3C propagator", () => {
  it("reads a valid traceparent and refuses all-zero ids, version ff, extra fields on 00 and oversized values", () => {
    expect(TraceContext.parse(`00-${TRACE}-${SPAN}-01`)).toMatchObject({ traceId: TRACE, spanId: SPAN, traceFlags: 1 })
    expect(TraceContext.parse(`01-${TRACE}-${SPAN}-00-future`)).toMatchObject({ traceId: TRACE, traceFlags: 0 })
    for (const bad of [`00-${"0".repeat(32)}-${SPAN}-01`, `00-${TRACE}-${"0".repeat(16)}-01`, `ff-${TRACE}-${SPAN}-01`, `00-${TRACE}-${SPAN}-01-x`, "junk", `00-${TRACE}-${SPAN}-01${" ".repeat(600)}`]) {
      expect(TraceContext.parse(bad)).toBeUndefined()
    }
  })

  it("continues an inbound trace under a new span id, keeping its flags; starts a sampled one otherwise and drops a stray tracestate", () => {
    const headers: Record<string, string | undefined> = {}
    expect(TraceContext.continueUntraced({ traceparent: `00-${TRACE}-${SPAN}-00`, tracestate: "a=1" }, headers)).toBe(TRACE)
    expect(headers.traceparent).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-00$`))
    expect(headers.traceparent).not.toContain(SPAN)
    expect("tracestate" in headers).toBe(false)

    const fresh: Record<string, string | undefined> = {}
    const traceId = TraceContext.continueUntraced({ traceparent: "junk", tracestate: "a=1" }, fresh)
    expect(traceId).toMatch(/^[0-9a-f]{32}$/)
    expect(fresh.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`))
    expect(fresh).toHaveProperty("tracestate", undefined)
  })

  it("extracts and injects traceparent, tracestate and baggage for a hop that records its span", () => {
    const inbound = TraceContext.extract({ traceparent: `00-${TRACE}-${SPAN}-01`, tracestate: "vendor=x", baggage: "tenant=acme" })
    expect(TraceContext.remoteOf(inbound)).toMatchObject({ traceId: TRACE, spanId: SPAN, traceFlags: TraceFlags.SAMPLED, isRemote: true })
    const out: Record<string, string | undefined> = {}
    TraceContext.inject(inbound, { traceId: TRACE, spanId: "1111111111111111", sampled: true }, out)
    expect(out).toEqual({ traceparent: `00-${TRACE}-1111111111111111-01`, tracestate: "vendor=x", baggage: "tenant=acme" })
    expect(TraceContext.remoteOf(TraceContext.extract({}))).toBeUndefined()
  })
})
