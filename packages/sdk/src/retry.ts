/**
 * How a request is retried. Only 429 and 503 answers are retried (the server did not process the
 * request), plus connection failures for idempotent methods; see `docs/decisions/0050`.
 */
export interface RetryOptions {
  /** Retries after the first attempt. @default 2 */
  readonly limit?: number
  /** Wait before the first retry; doubled for each further one, then jittered down by up to 25 %. @default 500 */
  readonly baseDelayMs?: number
  /** Upper bound of the exponential wait. @default 8000 */
  readonly maxDelayMs?: number
  /** A `Retry-After` longer than this is not waited for: the error is thrown at once. @default 60000 */
  readonly maxRetryAfterMs?: number
}

/** {@link RetryOptions} with every default filled in. */
export type RetryPolicy = Required<RetryOptions>

/** The policy used when none is given. */
export const defaultRetryPolicy: RetryPolicy = {
  limit: 2,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000
}

/** Methods that may be repeated without changing the outcome (RFC 9110 §9.2.2). */
export const idempotentMethods: ReadonlySet<string> = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"])

/** Statuses that say "not processed, try again later". */
export const retryableStatuses: ReadonlySet<number> = new Set([429, 503])

/** Merges a `retry` option (a number is the limit) over a base policy. */
export const resolveRetryPolicy = (
  option: number | RetryOptions | undefined,
  base: RetryPolicy = defaultRetryPolicy
): RetryPolicy => {
  if (option === undefined) return base
  if (typeof option === "number") return { ...base, limit: option }
  return { ...base, ...definedOnly(option) }
}

const definedOnly = (options: RetryOptions): RetryOptions =>
  Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined))

/** Whether an answer with `status` may be retried for this method, given whether it carries an idempotency key. */
export const canRetryStatus = (method: string, hasIdempotencyKey: boolean, status: number): boolean =>
  retryableStatuses.has(status) && (idempotentMethods.has(method) || hasIdempotencyKey)

/** Whether a failed connection may be retried: only for idempotent methods, since the server may have acted. */
export const canRetryConnection = (method: string): boolean => idempotentMethods.has(method)

/** The jittered exponential wait before retry number `retry` (1-based). */
export const backoffDelay = (retry: number, policy: RetryPolicy, random: () => number = Math.random): number => {
  const exponential = Math.min(policy.baseDelayMs * 2 ** (retry - 1), policy.maxDelayMs)
  return Math.round(exponential * (1 - random() * 0.25))
}

/**
 * Parses a `Retry-After` value (a delay in seconds, or an HTTP date) into milliseconds from `now`;
 * `null` when absent or unreadable. A date in the past gives 0.
 */
export const parseRetryAfter = (value: string | null, now: number = Date.now()): number | null => {
  if (value === null) return null
  const trimmed = value.trim()
  if (trimmed === "") return null
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000)
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? null : Math.max(0, date - now)
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    signal?.addEventListener("abort", onAbort, { once: true })
  })
