import { EventRouteRefs } from "@core/contracts/routes"
import { routeCaller } from "../call.js"
import { CoreAbortError, CoreApiError, CoreConnectionError, CoreError, CoreTimeoutError } from "../errors.js"
import { type CoreEvent, type EventsClient, eventsMethods, type EventType } from "../generated/events.js"
import { gatewayPrefixOf } from "../gateway.js"
import { sleep } from "../retry.js"
import { parseEventStream } from "../sse.js"
import type { Transport } from "../transport.js"

// The methods, their types and docs are generated from the catalogue (src/generated/events.ts);
// this file adds what is special: `stream` over the organization's Server-Sent Events.
export type { CoreEvent, EventsCallOptions, EventsClient, EventType } from "../generated/events.js"

/** The options of `events.stream`. */
export interface EventStreamOptions {
  /** Only events of these types. @default every type */
  readonly types?: ReadonlyArray<EventType>
  /** Only the events of this platform. */
  readonly platformId?: string
  /**
   * Start after this event (an `evt_…` id seen before), as `Last-Event-ID` does; an id no longer
   * kept starts from the oldest kept event. @default the events that follow the connection
   */
  readonly lastEventId?: string
  /** Ends the iteration: the iterator then throws `CoreAbortError`. */
  readonly signal?: AbortSignal
  /** Milliseconds to wait before opening a dropped stream again. @default 1000 */
  readonly reconnectDelayMs?: number
  /** Attempts in a row to open the stream again that fail before the iterator throws the last error. @default 5 */
  readonly maxReconnects?: number
  /** Called each time the stream is open (at first, and after each reconnection): from then on no event is missed. */
  readonly onOpen?: () => void
  /** Called when the stream dropped, with why, before it is opened again (`attempt`: 1 for the first try of this drop). */
  readonly onReconnect?: (error: unknown, attempt: number) => void
  readonly headers?: Readonly<Record<string, string>>
  /** Milliseconds to wait for the stream's response headers; the stream itself has no time limit. @default 60000 */
  readonly openTimeout?: number
}

/**
 * Whether a failure to open or read the stream is worth opening it again for: the connection, a
 * timeout, or the server's 5xx (a restart, an upstream away) — not a refusal (401, 403, 400).
 */
const isDropped = (error: unknown): boolean =>
  error instanceof CoreConnectionError || error instanceof CoreTimeoutError || (error instanceof CoreApiError ? error.status >= 500 : !(error instanceof CoreError))

/** `client.events` on `transport`, under `basePath` (the routes' own `/api/v1/events` by default). */
export const events = (transport: Transport, basePath?: string): EventsClient => {
  const route = EventRouteRefs.streamEvents
  const path = `${basePath ?? gatewayPrefixOf(route)}${route.path}`

  async function* stream(options: EventStreamOptions = {}): AsyncGenerator<CoreEvent, void, undefined> {
    const { signal } = options
    let lastEventId = options.lastEventId
    let delay = options.reconnectDelayMs ?? 1000
    let failures = 0
    const query = { types: options.types?.join(","), platformId: options.platformId }
    for (;;) {
      let lastError: unknown = new CoreConnectionError("The event stream ended")
      try {
        const body = await transport.request<ReadableStream<Uint8Array> | null>("GET", path, {
          responseType: "stream",
          query,
          timeout: options.openTimeout ?? 60_000,
          headers: { accept: "text/event-stream", ...options.headers, ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }) },
          ...(signal === undefined ? {} : { signal })
        })
        failures = 0
        options.onOpen?.()
        if (body !== null) {
          for await (const message of parseEventStream(body)) {
            if (message.retry !== undefined) delay = message.retry
            // A block without an event names the stream's position (its opening `id`): resume there.
            if (message.data === "") {
              lastEventId = message.id
              continue
            }
            let event: CoreEvent
            try {
              event = JSON.parse(message.data) as CoreEvent
            } catch {
              continue
            }
            // The position is the last event handed to the caller: a dropped stream resumes after it.
            lastEventId = message.id ?? event.id
            yield event
          }
        }
      } catch (error) {
        if (signal?.aborted) throw new CoreAbortError(signal.reason)
        if (!isDropped(error)) throw error
        lastError = error
      }
      if (++failures > (options.maxReconnects ?? 5)) throw lastError
      options.onReconnect?.(lastError, failures)
      try {
        await sleep(delay, signal)
      } catch (reason) {
        throw new CoreAbortError(reason)
      }
    }
  }

  return eventsMethods(routeCaller(transport, { basePath }), { stream })
}
