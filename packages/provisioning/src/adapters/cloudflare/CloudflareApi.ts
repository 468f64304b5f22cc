import { Duration, Effect, Option, Redacted } from "effect"
import { JobFailed } from "../../JobHandlers.js"

/** Cloudflare's v4 API. */
export const CLOUDFLARE_API_URL = "https://api.cloudflare.com/client/v4"

/** One entry of an envelope's `errors` (or `messages`). */
export interface CloudflareMessage {
  readonly code: number
  readonly message: string
}

/** Every v4 answer: `{ success, errors, messages, result, result_info }`. */
export interface Envelope<A> {
  readonly success: boolean
  readonly errors: ReadonlyArray<CloudflareMessage>
  readonly messages: ReadonlyArray<unknown>
  readonly result: A
  readonly result_info?: {
    readonly page?: number
    readonly per_page?: number
    readonly count?: number
    readonly total_count?: number
    readonly cursor?: string
  }
}

/** How the client reaches the API and how long it waits. */
export interface CloudflareApiOptions {
  readonly accountId: string
  /** Sent as `Authorization: Bearer …` and nowhere else: never in a message, a span or a log. */
  readonly apiToken: Redacted.Redacted<string>
  /** @default CLOUDFLARE_API_URL */
  readonly baseUrl?: string
  /** One request's bound. @default 30 seconds */
  readonly requestTimeout?: Duration.DurationInput
  /** The longest `Retry-After` honoured after a 429 (a longer one is cut to it). @default 30 seconds */
  readonly maxRetryAfter?: Duration.DurationInput
  /** Requests made again after a 429 before the call fails (the queue then retries the job). @default 2 */
  readonly rateLimitRetries?: number
}

/** A request's body: JSON, a multipart form, or raw text. */
export type Body =
  | { readonly json: unknown }
  | { readonly form: FormData }
  | { readonly text: string; readonly contentType: string }

interface Call {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  readonly path: string
  readonly query?: Record<string, string | number | undefined>
  readonly body?: Body
}

/** What a 4xx/5xx envelope says, as one line: `message [code]; …`. */
const describe = (errors: ReadonlyArray<CloudflareMessage>): string =>
  errors.length === 0 ? "no error detail" : errors.map((error) => `${error.message} [${error.code}]`).join("; ")

/** `Retry-After` in seconds or as an HTTP date; absent or unreadable: one second. */
const retryAfterMillis = (header: string | null, now: number): number => {
  if (header === null) return 1_000
  const seconds = Number(header)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1_000
  const date = Date.parse(header)
  return Number.isNaN(date) ? 1_000 : Math.max(0, date - now)
}

const isEnvelope = (value: unknown): value is Envelope<unknown> =>
  typeof value === "object" && value !== null && "success" in value && Array.isArray((value as { errors?: unknown }).errors)

/**
 * A small client of Cloudflare's v4 API over `fetch` (no SDK: we use a dozen endpoints and want
 * their errors as `JobFailed` with the API's own words; decision 0298). Every failure is a
 * `JobFailed` the queue retries: an error envelope with its messages and codes, a 5xx, a refused
 * token (named as such), a 429 once `Retry-After` (bounded) has been waited out `rateLimitRetries`
 * times, a timeout or an unreachable API.
 */
export const make = (options: CloudflareApiOptions) => {
  const baseUrl = (options.baseUrl ?? CLOUDFLARE_API_URL).replace(/\/+$/, "")
  const timeout = Duration.toMillis(Duration.decode(options.requestTimeout ?? Duration.seconds(30)))
  const maxRetryAfter = Duration.toMillis(Duration.decode(options.maxRetryAfter ?? Duration.seconds(30)))
  const rateLimitRetries = options.rateLimitRetries ?? 2

  const urlOf = (call: Call) => {
    const url = new URL(baseUrl + call.path)
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value))
    }
    return url
  }

  const send = (call: Call) =>
    Effect.tryPromise({
      try: (signal) => {
        const headers = new Headers({ authorization: `Bearer ${Redacted.value(options.apiToken)}`, accept: "application/json" })
        let body: BodyInit | undefined
        if (call.body !== undefined) {
          if ("json" in call.body) {
            headers.set("content-type", "application/json")
            body = JSON.stringify(call.body.json)
          } else if ("form" in call.body) {
            body = call.body.form
          } else {
            headers.set("content-type", call.body.contentType)
            body = call.body.text
          }
        }
        return fetch(urlOf(call), { method: call.method, headers, body, signal: AbortSignal.any([signal, AbortSignal.timeout(timeout)]) })
          .then(async (response) => ({ response, text: await response.text() }))
      },
      catch: (cause) =>
        new JobFailed({
          message: cause instanceof Error && cause.name === "TimeoutError"
            ? `Cloudflare API did not answer ${call.method} ${call.path} within ${timeout} ms`
            : `Cloudflare API unreachable (${call.method} ${call.path}): ${cause instanceof Error ? cause.message : String(cause)}`
        })
    })

  /**
   * Make `call`; a 404 answers `None` (what is absent is not an error for a lookup or a delete),
   * any other failure is a `JobFailed`.
   */
  const request = <A>(call: Call): Effect.Effect<Option.Option<Envelope<A>>, JobFailed> =>
    Effect.gen(function*() {
      for (let attempt = 0;; attempt++) {
        const { response, text } = yield* send(call)
        let parsed: unknown = undefined
        try {
          parsed = text.length === 0 ? undefined : JSON.parse(text)
        } catch {
          parsed = undefined
        }
        const envelope = isEnvelope(parsed) ? parsed : undefined
        const detail = envelope ? describe(envelope.errors) : `HTTP ${response.status}`
        const what = `${call.method} ${call.path}`
        if (response.status === 429) {
          const wait = Math.min(retryAfterMillis(response.headers.get("retry-after"), Date.now()), maxRetryAfter)
          if (attempt < rateLimitRetries) {
            yield* Effect.logDebug(`Cloudflare rate limit on ${what}; waiting ${wait} ms`)
            yield* Effect.sleep(Duration.millis(wait))
            continue
          }
          return yield* new JobFailed({ message: `Cloudflare rate limit on ${what} after ${attempt + 1} attempts: ${detail}` })
        }
        if (response.status === 401 || response.status === 403) {
          return yield* new JobFailed({
            message: `Cloudflare refused the API token (CLOUDFLARE_API_TOKEN) for ${what}: ${detail}; ` +
              `check that it is valid and has this permission on account ${options.accountId}`
          })
        }
        if (response.status === 404) return Option.none()
        if (response.status >= 500) {
          return yield* new JobFailed({ message: `Cloudflare API error ${response.status} on ${what}: ${detail}` })
        }
        if (envelope === undefined) {
          if (response.ok) return Option.some({ success: true, errors: [], messages: [], result: undefined as A })
          return yield* new JobFailed({ message: `Cloudflare ${what} failed (${response.status}): ${detail}` })
        }
        if (!response.ok || envelope.success !== true) {
          return yield* new JobFailed({ message: `Cloudflare ${what} failed (${response.status}): ${detail}` })
        }
        return Option.some(envelope as Envelope<A>)
      }
    }).pipe(Effect.withSpan("CloudflareApi.request", { attributes: { method: call.method, path: call.path } }))

  /** `call`, whose 404 is a failure too (the thing should be there). */
  const required = <A>(call: Call): Effect.Effect<Envelope<A>, JobFailed> =>
    Effect.flatMap(request<A>(call), Option.match({
      onNone: () => Effect.fail(new JobFailed({ message: `Cloudflare ${call.method} ${call.path} failed (404): not found` })),
      onSome: Effect.succeed
    }))

  const account = `/accounts/${encodeURIComponent(options.accountId)}`
  return { request, required, account, accountId: options.accountId } as const
}

/** The client `make` builds. */
export type CloudflareApi = ReturnType<typeof make>

/** A path segment, encoded. */
export const seg = (value: string): string => encodeURIComponent(value)
