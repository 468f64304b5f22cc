import ky, { TimeoutError, type KyInstance } from "ky"
import {
  CoreAbortError,
  CoreConnectionError,
  CoreError,
  CoreResponseValidationError,
  CoreTimeoutError,
  apiErrorFromResponse
} from "./errors.js"
import {
  backoffDelay,
  canRetryConnection,
  canRetryStatus,
  parseRetryAfter,
  resolveRetryPolicy,
  sleep,
  type RetryOptions,
  type RetryPolicy
} from "./retry.js"
import { isBrowser, randomUuid } from "./runtime.js"
import { validateResponse, type ResponseSchema } from "./schema.js"

/** An HTTP method the SDK sends. */
export type HttpMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS"

/** Query parameters; `null` and `undefined` are left out, arrays repeat the key. */
export type Query = Readonly<
  Record<string, string | number | boolean | null | undefined | ReadonlyArray<string | number | boolean>>
>

/** How the client connects and authenticates. */
export interface ClientOptions {
  /** The gateway's address, e.g. `http://localhost:8787`; request paths are appended to it. */
  readonly baseUrl: string
  /** A session or access token, sent as `Authorization: Bearer <token>`. */
  readonly token?: string
  /** An API key (`core_…`), sent as `x-api-key`. Servers only: browsers cannot send it through CORS. */
  readonly apiKey?: string
  /** The fetch implementation to use. @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch
  /** Milliseconds one attempt may take before it fails with `CoreTimeoutError`. @default 30000 */
  readonly timeout?: number
  /** Retry policy, or just its limit. @default { limit: 2 } */
  readonly retry?: number | RetryOptions
  /** Headers sent with every request. */
  readonly headers?: Readonly<Record<string, string>>
  /**
   * Send an automatic `Idempotency-Key` on every POST and PATCH. Off in browsers by default, since
   * the gateway's CORS policy does not allow that header. @default true outside browsers
   */
  readonly idempotencyKeys?: boolean
}

/** Options of one request. */
export interface RequestOptions<T = unknown> {
  /** A JSON value (serialized), or a raw body: string, Blob, FormData, URLSearchParams, ArrayBuffer, stream. */
  readonly body?: unknown
  readonly query?: Query
  readonly headers?: Readonly<Record<string, string>>
  /** Validates the response body; the result is typed by it. */
  readonly schema?: ResponseSchema<T>
  readonly signal?: AbortSignal
  /** Overrides the client's timeout for this request. */
  readonly timeout?: number
  /** Overrides the client's retry policy for this request. */
  readonly retry?: number | RetryOptions
  /** This request's idempotency key; `false` sends none (and so a POST is never retried). */
  readonly idempotencyKey?: string | false
  /** `text` returns the body as a string whatever its type; `stream` returns the body unread (a `ReadableStream`, for Server-Sent Events). @default "json" */
  readonly responseType?: "json" | "text" | "stream"
}

/** Sends requests with authentication, retries, timeouts and error mapping; resources are built on it. */
export interface Transport {
  readonly request: <T = unknown>(method: HttpMethod, path: string, options?: RequestOptions<T>) => Promise<T>
}

const defaultTimeoutMs = 30_000

const isRawBody = (body: unknown): body is BodyInit =>
  typeof body === "string" ||
  body instanceof ArrayBuffer ||
  ArrayBuffer.isView(body) ||
  (typeof Blob !== "undefined" && body instanceof Blob) ||
  (typeof FormData !== "undefined" && body instanceof FormData) ||
  body instanceof URLSearchParams ||
  isStream(body)

const isStream = (body: unknown): boolean => typeof ReadableStream !== "undefined" && body instanceof ReadableStream

const toSearchParams = (query: Query | undefined): URLSearchParams | undefined => {
  if (query === undefined) return undefined
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) {
    if (value === null || value === undefined) continue
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, String(item))
  }
  return params
}

const authHeaders = (options: ClientOptions): Record<string, string> => ({
  ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
  ...(options.apiKey === undefined ? {} : { "x-api-key": options.apiKey })
})

const readSuccess = async (response: Response, responseType: "json" | "text" | "stream"): Promise<unknown> => {
  if (responseType === "stream") return response.body
  const text = await response.text()
  if (responseType === "text") return text
  if (text === "") return undefined
  if (!(response.headers.get("content-type") ?? "").includes("json")) return text
  try {
    return JSON.parse(text)
  } catch {
    throw new CoreResponseValidationError([{ message: "Response body is not valid JSON" }], text)
  }
}

const maxTimeoutMs = 2_147_483_647

const checkTimeout = (timeout: number): number => {
  if (!(timeout > 0 && timeout <= maxTimeoutMs)) throw new TypeError(`timeout must be between 1 and ${maxTimeoutMs} ms, got ${timeout}`)
  return timeout
}

const checkOptions = (options: ClientOptions): void => {
  if (!/^https?:\/\//i.test(options.baseUrl ?? "")) {
    throw new TypeError(`baseUrl must be an absolute http(s) URL, got ${JSON.stringify(options.baseUrl)}`)
  }
  if (options.token !== undefined && options.apiKey !== undefined) {
    throw new TypeError("Give either token or apiKey, not both")
  }
}

const headerValue = (headers: RequestOptions["headers"], name: string): string | undefined =>
  Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1]

const withoutHeader = (headers: RequestOptions["headers"], name: string): Record<string, string> =>
  Object.fromEntries(Object.entries(headers ?? {}).filter(([key]) => key.toLowerCase() !== name))

/** Builds the {@link Transport} for a client. */
export const createTransport = (options: ClientOptions): Transport => {
  checkOptions(options)
  const api: KyInstance = ky.create({
    prefixUrl: options.baseUrl,
    retry: 0,
    throwHttpErrors: false,
    headers: { accept: "application/json", ...options.headers, ...authHeaders(options) },
    ...(options.fetch === undefined ? {} : { fetch: options.fetch })
  })
  const clientPolicy = resolveRetryPolicy(options.retry)
  const clientTimeout = checkTimeout(options.timeout ?? defaultTimeoutMs)
  const autoKeys = options.idempotencyKeys ?? !isBrowser()

  const request = async <T>(method: HttpMethod, path: string, init: RequestOptions<T> = {}): Promise<T> => {
    const key = init.idempotencyKey === false
      ? undefined
      : init.idempotencyKey ?? headerValue(init.headers, "idempotency-key") ??
        (autoKeys && (method === "POST" || method === "PATCH") ? randomUuid() : undefined)
    const policy = resolveRetryPolicy(isStream(init.body) ? 0 : init.retry, clientPolicy)
    const timeout = init.timeout === undefined ? clientTimeout : checkTimeout(init.timeout)
    const attempt = () =>
      api(path.replace(/^\/+/, ""), {
        method,
        timeout,
        headers: { ...withoutHeader(init.headers, "idempotency-key"), ...(key === undefined ? {} : { "idempotency-key": key }) },
        ...(init.body === undefined ? {} : isRawBody(init.body) ? { body: init.body } : { json: init.body }),
        ...(init.query === undefined ? {} : { searchParams: toSearchParams(init.query) }),
        ...(init.signal === undefined ? {} : { signal: init.signal })
      })
    const context: SendContext = { method, hasKey: key !== undefined, policy, timeout, signal: init.signal }
    const response = await sendWithRetries(attempt, context)
    const body = await readSuccess(response, init.responseType ?? "json").catch((cause: unknown) => {
      throw toTransportError(cause, context)
    })
    return init.schema === undefined ? (body as T) : validateResponse(init.schema, body)
  }
  return { request }
}

interface SendContext {
  readonly method: HttpMethod
  readonly hasKey: boolean
  readonly policy: RetryPolicy
  readonly timeout: number
  readonly signal: AbortSignal | undefined
}

const sendWithRetries = async (attempt: () => Promise<Response>, context: SendContext): Promise<Response> => {
  for (let retry = 1; ; retry++) {
    const canRetry = retry <= context.policy.limit
    let response: Response
    try {
      response = await attempt()
    } catch (cause) {
      const error = toTransportError(cause, context)
      if (!(error instanceof CoreConnectionError && canRetry && canRetryConnection(context.method))) throw error
      await wait(backoffDelay(retry, context.policy), context.signal)
      continue
    }
    if (response.ok) return response
    if (canRetry && canRetryStatus(context.method, context.hasKey, response.status)) {
      const retryAfter = parseRetryAfter(response.headers.get("retry-after"))
      if (retryAfter === null || retryAfter <= context.policy.maxRetryAfterMs) {
        await response.body?.cancel()
        await wait(retryAfter ?? backoffDelay(retry, context.policy), context.signal)
        continue
      }
    }
    throw await apiErrorFromResponse(response)
  }
}

const toTransportError = (cause: unknown, context: SendContext): CoreError => {
  if (context.signal?.aborted) return new CoreAbortError(context.signal.reason)
  if (cause instanceof TimeoutError) return new CoreTimeoutError(context.timeout, { cause })
  if (cause instanceof CoreError) return cause
  const detail = cause instanceof Error ? describeCause(cause) : String(cause)
  return new CoreConnectionError(`Could not reach the server: ${detail}`, { cause })
}

const describeCause = (error: Error): string => {
  const inner = (error as { cause?: unknown }).cause
  const code = typeof inner === "object" && inner !== null ? (inner as { code?: unknown }).code : undefined
  return typeof code === "string" ? `${error.message} (${code})` : error.message
}

const wait = async (ms: number, signal: AbortSignal | undefined): Promise<void> => {
  try {
    await sleep(ms, signal)
  } catch (reason) {
    throw new CoreAbortError(reason)
  }
}
