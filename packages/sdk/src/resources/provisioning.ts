import type { Provisioning } from "@core/contracts"
import { ProvisioningRouteRefs, buildPath } from "@core/contracts/routes"
import { routeCaller } from "../call.js"
import { CoreAbortError, CoreConnectionError, CoreError } from "../errors.js"
import { gatewayPrefixOf } from "../gateway.js"
import {
  provisioningCreate,
  provisioningDeadLetters,
  provisioningDomains,
  provisioningJobs,
  type ProvisioningCreate,
  type ProvisioningDeadLetters,
  type ProvisioningDomains,
  type ProvisioningJobs,
  type RetryJobBody
} from "../generated/provisioning.js"
import { sleep } from "../retry.js"
import { parseEventStream, type ServerSentEvent } from "../sse.js"
import type { Transport } from "../transport.js"

// The methods, their types and docs are generated from the catalogue (src/generated/provisioning.ts);
// this file adds what is special: `jobs.watch` over the job's event stream, and the namespace itself.
export { parseEventStream, type ServerSentEvent }
export type {
  ListDeadLettersQuery,
  ListJobsQuery,
  ProvisioningCallOptions,
  ProvisioningCreate,
  ProvisioningDeadLetters,
  ProvisioningDomains,
  ProvisioningJobs
} from "../generated/provisioning.js"

const Routes: typeof ProvisioningRouteRefs = ProvisioningRouteRefs

/** An operator action's optional body: the reason, recorded in the job's events. */
export type OperatorActionInput = RetryJobBody

/** One event of a job's stream (`jobs.watch`). */
export type JobEvent = Provisioning.JobEvent

/** The options of `jobs.watch`. */
export interface WatchOptions {
  readonly signal?: AbortSignal
  /** Resume after this event (its `seq`), as a stream's `Last-Event-ID` does. @default every event from the first */
  readonly lastEventId?: number
  /** How long to wait before reconnecting a dropped stream (a server's `retry:` field overrides it). @default 1000 */
  readonly reconnectDelayMs?: number
  /** Reconnections in a row that deliver nothing before `watch` gives up with the last error. @default 5 */
  readonly maxReconnects?: number
  readonly headers?: Readonly<Record<string, string>>
  /**
   * Milliseconds to wait for the stream's response headers (the client's `timeout` is meant for
   * whole answers; a server may send a stream's headers only with its first event or keep-alive,
   * every 15 s). The stream itself has no time limit. @default 60000
   */
  readonly openTimeout?: number
}

const TERMINAL: ReadonlySet<string> = new Set(["COMPLETED", "FAILED"])

/** The provisioning service's namespace (`client.provisioning`, through the gateway at `/api/v1/provisioning`). */
export interface ProvisioningClient {
  readonly jobs: ProvisioningJobs
  readonly dlq: ProvisioningDeadLetters
  readonly create: ProvisioningCreate
  readonly domains: ProvisioningDomains
}

/** Whether a failure while opening or reading a stream is worth reconnecting for: the connection, not the server's answer. */
const isDropped = (error: unknown): boolean => error instanceof CoreConnectionError || !(error instanceof CoreError)

/** Where a job's event stream is read: under the provisioning service's gateway prefix. */
const streamPath = (jobId: string): string =>
  `${gatewayPrefixOf(Routes.streamJobEvents)}${buildPath(Routes.streamJobEvents.path, { jobId })}`

/** `client.provisioning` on `transport`. */
export const provisioning = (transport: Transport): ProvisioningClient => {
  const caller = routeCaller(transport)
  const { call } = caller

  async function* watch(jobId: string, options: WatchOptions = {}): AsyncGenerator<JobEvent, void, undefined> {
    const { signal } = options
    let lastEventId = options.lastEventId
    let delay = options.reconnectDelayMs ?? 1000
    const maxReconnects = options.maxReconnects ?? 5
    let failures = 0
    for (;;) {
      if (signal?.aborted) throw new CoreAbortError(signal.reason)
      let lastError: unknown
      try {
        const stream = await transport.request<ReadableStream<Uint8Array> | null>("GET", streamPath(jobId), {
          responseType: "stream",
          timeout: options.openTimeout ?? 60_000,
          headers: { accept: "text/event-stream", ...options.headers, ...(lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) }) },
          ...(signal === undefined ? {} : { signal })
        })
        if (stream !== null) {
          for await (const message of parseEventStream(stream)) {
            if (message.retry !== undefined) delay = message.retry
            if (message.id !== undefined && /^\d+$/.test(message.id)) lastEventId = Number(message.id)
            let event: JobEvent
            try {
              event = JSON.parse(message.data) as JobEvent
            } catch {
              continue
            }
            failures = 0
            yield event
            if (event.kind === "status" && TERMINAL.has(event.status)) return
          }
        }
      } catch (error) {
        if (signal?.aborted) throw new CoreAbortError(signal.reason)
        if (!isDropped(error)) throw error
        lastError = error
      }
      // The stream ended (or dropped) before the job's terminal event: is the job over already?
      const job = await call(Routes.getJob, { params: { jobId } }, { ...(signal === undefined ? {} : { signal }) })
      if (TERMINAL.has(job.status)) return
      if (++failures > maxReconnects) {
        throw lastError ?? new CoreConnectionError(`The event stream of job ${jobId} ended ${maxReconnects + 1} times without an event`)
      }
      try {
        await sleep(delay, signal)
      } catch (reason) {
        throw new CoreAbortError(reason)
      }
    }
  }

  return {
    jobs: provisioningJobs(caller, { watch }),
    dlq: provisioningDeadLetters(caller),
    create: provisioningCreate(caller),
    domains: provisioningDomains(caller)
  }
}
