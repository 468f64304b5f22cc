import type { Provisioning } from "@core/contracts"
import { ProvisioningRouteRefs, buildPath } from "@core/contracts/routes"
import { type CallInput, type CallOptions, type CallResult, type PageItem, routeCaller } from "../call.js"
import { CoreAbortError, CoreConnectionError, CoreError } from "../errors.js"
import { gatewayPrefixOf } from "../gateway.js"
import { sleep } from "../retry.js"
import type { Transport } from "../transport.js"

/** Per-call options of the provisioning methods (`idempotencyKey`: the job-creating routes answer the first job for a key again). */
export type ProvisioningCallOptions = Pick<CallOptions, "signal" | "headers" | "idempotencyKey">

const Routes: typeof ProvisioningRouteRefs = ProvisioningRouteRefs

/** The query of `jobs.list` and `jobs.all`: `cursor`, `limit` (1 to 100, default 25), and the filters `platformId` and `status`. */
export interface ListJobsQuery {
  readonly cursor?: string
  readonly limit?: number
  readonly platformId?: string
  readonly status?: Provisioning.JobStatus
}

/** The query of `dlq.list` and `dlq.all`: `cursor` and `limit` (1 to 100, default 25). */
export interface ListDeadLettersQuery {
  readonly cursor?: string
  readonly limit?: number
}

/** An operator action's optional body: the reason, recorded in the job's events. */
export interface OperatorActionInput {
  readonly reason?: string
}

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

/** One Server-Sent Event as the stream carries it. */
export interface ServerSentEvent {
  readonly id: string | undefined
  readonly event: string
  readonly data: string
  /** A `retry:` field: the reconnection delay the server asks for, in milliseconds. */
  readonly retry: number | undefined
}

const TERMINAL: ReadonlySet<string> = new Set(["COMPLETED", "FAILED"])

/**
 * Parses a `text/event-stream` (the WHATWG rules): lines end in CRLF, LF or CR; a blank line
 * dispatches the event; `:` starts a comment (a keep-alive); `data` lines join with `\n`; a field
 * without a colon has an empty value; one space after the colon is dropped. An event without data
 * is not dispatched. Yields `{ id, event, data, retry }`, `event` being `message` when unnamed.
 */
export async function* parseEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent, void, undefined> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ""
  let data: Array<string> = []
  let event = ""
  let id: string | undefined
  let retry: number | undefined
  /** The previous chunk ended in CR: a LF starting this one belongs to it. */
  let pendingCr = false
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      buffer += decoder.decode(value, { stream: true })
      if (pendingCr && buffer.startsWith("\n")) buffer = buffer.slice(1)
      pendingCr = false
      for (;;) {
        const end = buffer.search(/\r\n|\n|\r/)
        if (end === -1) break
        if (buffer[end] === "\r" && end === buffer.length - 1) {
          pendingCr = true
        }
        const line = buffer.slice(0, end)
        buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1))
        if (line === "") {
          if (data.length > 0) yield { id, event: event === "" ? "message" : event, data: data.join("\n"), retry }
          data = []
          event = ""
          retry = undefined
          continue
        }
        if (line.startsWith(":")) continue
        const colon = line.indexOf(":")
        const field = colon === -1 ? line : line.slice(0, colon)
        const raw = colon === -1 ? "" : line.slice(colon + 1)
        const text = raw.startsWith(" ") ? raw.slice(1) : raw
        if (field === "data") data.push(text)
        else if (field === "event") event = text
        else if (field === "id" && !text.includes("\0")) id = text
        else if (field === "retry" && /^\d+$/.test(text)) retry = Number(text)
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}

/**
 * A platform's jobs (`client.provisioning.jobs`, `/api/v1/provisioning/api/v1/provision/jobs`), one
 * method per route of `Provisioning.ProvisioningRoutes` (named in each comment). A platform's owner
 * and admins read its jobs (another tenant's job is a `NotFoundError`); retry, cancel and
 * force-complete are the operators'.
 */
export interface ProvisioningJobs {
  /** `getJob`: its status, steps, progress, attempts, timestamps and result. */
  readonly get: (jobId: string, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.getJob>>
  /** `listJobs`: one page, newest first (`{ data, pagination: { limit, cursor, nextCursor, count } }`). */
  readonly list: (query?: ListJobsQuery, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.listJobs>>
  /** `listJobs`, every page: `for await (const job of client.provisioning.jobs.all({ status: "FAILED" }))`. */
  readonly all: (query?: Omit<ListJobsQuery, "cursor">, options?: ProvisioningCallOptions) => AsyncGenerator<PageItem<typeof Routes.listJobs>, void, undefined>
  /** `retryJob`: queue a `FAILED` job again (a `ConflictError`, `INVALID_STATE`, from any other status). */
  readonly retry: (jobId: string, input?: OperatorActionInput, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.retryJob>>
  /** `cancelJob`: a `QUEUED` or `RUNNING` job becomes `FAILED` with the reason. */
  readonly cancel: (jobId: string, input?: OperatorActionInput, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.cancelJob>>
  /** `forceCompleteJob`: mark it `COMPLETED` whatever its state (but `COMPLETED`). */
  readonly forceComplete: (jobId: string, input?: OperatorActionInput, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.forceCompleteJob>>
  /**
   * `streamJobEvents`: the job's events as they happen (past ones first), ending after the event
   * that makes it `COMPLETED` or `FAILED`. A dropped stream is opened again with `Last-Event-ID`, so
   * no event is seen twice or missed; `signal` stops it (a `CoreAbortError`).
   *
   * @example
   * for await (const event of client.provisioning.jobs.watch(jobId)) {
   *   console.log(event.kind, event.status, event.step?.name, Math.round(event.progress * 100))
   * }
   */
  readonly watch: (jobId: string, options?: WatchOptions) => AsyncGenerator<Provisioning.JobEvent, void, undefined>
}

/** The dead-letter list (`client.provisioning.dlq`; operators): jobs that failed for good, and their replay. */
export interface ProvisioningDeadLetters {
  /** `listDeadLetters`: one page, oldest failure first (`{ data, pagination: { limit, cursor } }`, `cursor` `""` on the last). */
  readonly list: (query?: ListDeadLettersQuery, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.listDeadLetters>>
  /** `listDeadLetters`, every page. */
  readonly all: (query?: Omit<ListDeadLettersQuery, "cursor">, options?: ProvisioningCallOptions) => AsyncGenerator<PageItem<typeof Routes.listDeadLetters>, void, undefined>
  /** `replayDeadLetter`: a new job of the same type and payload (`{ jobId, status: "QUEUED", entryId }`). */
  readonly replay: (entryId: string, input?: OperatorActionInput, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.replayDeadLetter>>
}

/**
 * The job-creating routes (docs/provisioning.md; `client.provisioning.create`): each answers
 * `{ jobId, status: "QUEUED" }` (202). Pass `idempotencyKey` to make a call safe to repeat: the same
 * key answers the first job (the SDK otherwise sends a fresh key per call, reused by its retries).
 */
export interface ProvisioningCreate {
  /** `provisionPlatform` (`platform.provision`). */
  readonly platform: (input: Provisioning.ProvisionPlatformRequest, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.provisionPlatform>>
  /** `deprovisionPlatform` (`platform.deprovision`). */
  readonly platformDeprovision: (input: Provisioning.ProvisionPlatformDeprovisionRequest, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.deprovisionPlatform>>
  /** `activateFeatureJob` (`feature.activate`). */
  readonly featureActivate: (input: Provisioning.ProvisionFeatureActivateRequest, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.activateFeatureJob>>
  /** `deactivateFeatureJob` (`feature.deactivate`). */
  readonly featureDeactivate: (input: Provisioning.ProvisionFeatureDeactivateRequest, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.deactivateFeatureJob>>
  /** `activateStack` (`stack.activate`; the job's result carries the `stackInstanceId`). */
  readonly stackActivate: (input: Provisioning.ProvisionStackActivateRequest, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.activateStack>>
  /** `deactivateStack` (`stack.deactivate`). */
  readonly stackDeactivate: (input: Provisioning.ProvisionStackDeactivateRequest, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.deactivateStack>>
  /** `onboard` (`onboard`). */
  readonly onboard: (input: Provisioning.ProvisionOnboardRequest, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.onboard>>
  /** `createApp` (`app.create`). */
  readonly app: (input: Provisioning.ProvisionAppCreateRequest, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.createApp>>
  /** `addDomain` (`domain.add`). */
  readonly domain: (input: Provisioning.ProvisionDomainAddRequest, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.addDomain>>
  /** `upgradeAuth` (`auth.upgrade`; operators): `{ jobId, platformId }`. */
  readonly authUpgrade: (input: Provisioning.AuthUpgradeRequest, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.upgradeAuth>>
}

/** A platform's custom domains (`client.provisioning.domains`); `create.domain` adds one (a job). */
export interface ProvisioningDomains {
  /** `listDomains`: the platform's domains (`{ data }`, every one: the list is not paged). */
  readonly list: (platformId: string, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.listDomains>>
  /** `removeDomain`: its hostname stops routing on the edge; answers the record, now `deleted`. */
  readonly remove: (id: string, options?: ProvisioningCallOptions) => Promise<CallResult<typeof Routes.removeDomain>>
}

/** The provisioning service's namespace (`client.provisioning`, through the gateway at `/api/v1/provisioning`). */
export interface ProvisioningClient {
  readonly jobs: ProvisioningJobs
  readonly dlq: ProvisioningDeadLetters
  readonly create: ProvisioningCreate
  readonly domains: ProvisioningDomains
}

const bodyOf = (input: OperatorActionInput | undefined) => (input === undefined ? {} : { body: input })

/** Whether a failure while opening or reading a stream is worth reconnecting for: the connection, not the server's answer. */
const isDropped = (error: unknown): boolean => error instanceof CoreConnectionError || !(error instanceof CoreError)

/** Where a job's event stream is read: under the provisioning service's gateway prefix. */
const streamPath = (jobId: string): string =>
  `${gatewayPrefixOf(Routes.streamJobEvents)}${buildPath(Routes.streamJobEvents.path, { jobId })}`

/** `client.provisioning` on `transport`. */
export const provisioning = (transport: Transport): ProvisioningClient => {
  const { call, pages } = routeCaller(transport)
  /** A job-creating route's method: the request body is the input. */
  const creating = <R extends (typeof Routes)[keyof typeof Routes]>(route: R) =>
    (input: CallInput<R> extends { readonly body?: infer B } ? B : never, options?: ProvisioningCallOptions) =>
      call(route, { body: input } as CallInput<R>, options)

  async function* watch(jobId: string, options: WatchOptions = {}): AsyncGenerator<Provisioning.JobEvent, void, undefined> {
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
            let event: Provisioning.JobEvent
            try {
              event = JSON.parse(message.data) as Provisioning.JobEvent
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
    jobs: {
      get: (jobId, options) => call(Routes.getJob, { params: { jobId } }, options),
      list: (query = {}, options) => call(Routes.listJobs, { query }, options),
      all: (query = {}, options) => pages(Routes.listJobs, { query }, options),
      retry: (jobId, input, options) => call(Routes.retryJob, { params: { jobId }, ...bodyOf(input) }, options),
      cancel: (jobId, input, options) => call(Routes.cancelJob, { params: { jobId }, ...bodyOf(input) }, options),
      forceComplete: (jobId, input, options) => call(Routes.forceCompleteJob, { params: { jobId }, ...bodyOf(input) }, options),
      watch
    },
    dlq: {
      list: (query = {}, options) => call(Routes.listDeadLetters, { query }, options),
      all: (query = {}, options) => pages(Routes.listDeadLetters, { query }, options),
      replay: (entryId, input, options) => call(Routes.replayDeadLetter, { params: { entryId }, ...bodyOf(input) }, options)
    },
    create: {
      platform: creating(Routes.provisionPlatform),
      platformDeprovision: creating(Routes.deprovisionPlatform),
      featureActivate: creating(Routes.activateFeatureJob),
      featureDeactivate: creating(Routes.deactivateFeatureJob),
      stackActivate: creating(Routes.activateStack),
      stackDeactivate: creating(Routes.deactivateStack),
      onboard: creating(Routes.onboard),
      app: creating(Routes.createApp),
      domain: creating(Routes.addDomain),
      authUpgrade: creating(Routes.upgradeAuth)
    },
    domains: {
      list: (platformId, options) => call(Routes.listDomains, { query: { platformId } }, options),
      remove: (id, options) => call(Routes.removeDomain, { params: { id } }, options)
    }
  }
}
