/** What both paths of `HttpUpstream` share about failing: the settings, the abort marker, the errors, the log lines. */
import { UpstreamTimeout, UpstreamUnavailable } from "@core/kernel"
import { Effect } from "effect"
import type * as net from "node:net"
import type { UpstreamErrorKind } from "../Metrics.js"
import type { ServiceName } from "../Routes.js"
import type { Target, Timeouts } from "./upstreamTarget.js"

/** An upstream's fixed parts, as `HttpUpstream.make` resolves them. */
export interface Settings extends Timeouts {
  readonly service: ServiceName
  readonly target: Target
  readonly trustProxy: boolean
  readonly onError: (service: ServiceName, kind: UpstreamErrorKind) => void
}

/** The marker a request is destroyed with when a timer fires or the caller goes away (or its body breaks off). */
export class Abort extends Error {
  constructor(readonly kind: "timeout" | "client") {
    super(kind)
  }
}

/** Count a failure with `onError` and log it as a warning. */
const report = (settings: Settings, requestId: string, kind: UpstreamErrorKind, message: string, reason: string) =>
  Effect.sync(() => settings.onError(settings.service, kind)).pipe(
    Effect.zipRight(Effect.logWarning(message)),
    Effect.annotateLogs({ upstream: settings.service, kind, reason, requestId })
  )

/** Report an exchange that failed before the headers. */
export const reportFailed = (settings: Settings, requestId: string, kind: UpstreamErrorKind, reason: string) =>
  report(settings, requestId, kind, kind === "timeout" ? "upstream timed out" : "upstream unreachable", reason)

/** Report a response body that broke off (`unavailable`) or stood still (`timeout`) after the headers. */
export const reportBrokenOff = (settings: Settings, requestId: string, kind: UpstreamErrorKind) =>
  report(settings, requestId, kind, "upstream response broken off", kind === "timeout" ? "idle" : "closed")

/** The error answered for a failure before the headers: it names the service, never the URL. */
export const errorOf = (service: ServiceName, kind: UpstreamErrorKind): UpstreamUnavailable | UpstreamTimeout =>
  kind === "timeout"
    ? new UpstreamTimeout({ message: `The ${service} service did not answer in time`, upstream: service })
    : new UpstreamUnavailable({ message: `The ${service} service is not reachable`, upstream: service })

/**
 * Close the client's connection once what was written has left (an immediate destroy would drop
 * what Node still holds corked), so that the client sees a truncated body, not a clean end.
 */
export const cutConnection = (socket: net.Socket): void => {
  socket.end(() => socket.destroy())
}
