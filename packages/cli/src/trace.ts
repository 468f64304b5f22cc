import { randomBytes } from "node:crypto"

type Env = Readonly<Record<string, string | undefined>>

/** The W3C trace context a command's requests carry (https://www.w3.org/TR/trace-context/). */
export interface CommandTrace {
  readonly traceId: string
  /** `00-<trace id>-<the command's span id>-<flags>`: the parent of every request the command sends. */
  readonly traceparent: string
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/**
 * The trace of one `core` command: the one a `TRACEPARENT` variable names (OpenTelemetry's
 * environment carrier: a script or CI job that traces itself), its trace id and flags kept, else a
 * new sampled trace; with a new span id for the command either way.
 */
export const commandTrace = (env: Env): CommandTrace => {
  const inherited = TRACEPARENT.exec((env.TRACEPARENT ?? "").trim().toLowerCase())
  const valid = inherited !== null && !/^0+$/.test(inherited[1]!) && !/^0+$/.test(inherited[2]!)
  const traceId = valid ? inherited[1]! : randomBytes(16).toString("hex")
  const flags = valid ? inherited[3]! : "01"
  return { traceId, traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-${flags}` }
}
