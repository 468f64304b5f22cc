import { type UpstreamUnavailable } from "@core/kernel"
import { Duration, Effect, Redacted } from "effect"
import { sourceHostUnavailable } from "../../Errors.js"

/** How the client reaches GitHub's REST API and how long it waits. */
export interface GitHubApiOptions {
  /** Sent as `Authorization: Bearer …` and nowhere else: never in a message, a span or a log. */
  readonly token: Redacted.Redacted<string>
  /** @default "https://api.github.com" */
  readonly baseUrl: string
  /** One request's bound. @default 30 seconds */
  readonly requestTimeout?: Duration.DurationInput
  /** The longest rate-limit wait honoured (a longer one fails the call at once). @default 60 seconds */
  readonly maxRetryAfter?: Duration.DurationInput
  /** Requests made again after a rate limit before the call fails. @default 2 */
  readonly rateLimitRetries?: number
}

/** One call: a path under the API, JSON in and out. */
export interface Call {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  readonly path: string
  readonly query?: Record<string, string | undefined>
  readonly json?: unknown
}

/** What GitHub answered (2xx, or a 404, 409, 422 the caller decides about). */
export interface Answer {
  readonly status: number
  readonly body: any
}

/** GitHub's error body: `{ message, errors?: [{ code, field, message }], documentation_url }`. */
const describe = (body: any, status: number): string => {
  const message = typeof body?.message === "string" ? body.message.slice(0, 200) : `HTTP ${status}`
  const errors = Array.isArray(body?.errors)
    ? body.errors.slice(0, 3).map((e: any) => typeof e === "string" ? e : (e?.message ?? e?.code ?? "")).filter(Boolean).join("; ")
    : ""
  return errors === "" ? message : `${message} (${String(errors).slice(0, 200)})`
}

/**
 * How long a rate limit asks to wait (decision 0489): `retry-after` seconds (the secondary limit),
 * else `x-ratelimit-reset` (epoch seconds) when `x-ratelimit-remaining` is 0 (the primary), else a
 * minute as GitHub's documentation says; `undefined` when the answer is not a rate limit.
 */
export const rateLimitWait = (status: number, headers: Headers, now: number): number | undefined => {
  const retryAfter = headers.get("retry-after")
  const remaining = headers.get("x-ratelimit-remaining")
  const limited = status === 429 || (status === 403 && (retryAfter !== null || remaining === "0"))
  if (!limited) return undefined
  if (retryAfter !== null && Number.isFinite(Number(retryAfter))) return Math.max(0, Number(retryAfter) * 1_000)
  const reset = Number(headers.get("x-ratelimit-reset"))
  if (remaining === "0" && Number.isFinite(reset) && reset > 0) return Math.max(0, reset * 1_000 - now)
  return 60_000
}

/**
 * A small client of GitHub's REST API over `fetch` (five endpoints; no SDK). Failures are the port's
 * `UpstreamUnavailable` (502) in GitHub's own words: a refused token (401) or permission (403), a
 * rate limit still there after `rateLimitRetries` waits (or asking longer than `maxRetryAfter`), a
 * 5xx, a timeout, an unreachable API. A 404, 409 or 422 is answered: the caller knows what it means.
 */
export const make = (options: GitHubApiOptions) => {
  const baseUrl = options.baseUrl.replace(/\/+$/, "")
  const timeout = Duration.toMillis(Duration.decode(options.requestTimeout ?? Duration.seconds(30)))
  const maxRetryAfter = Duration.toMillis(Duration.decode(options.maxRetryAfter ?? Duration.seconds(60)))
  const rateLimitRetries = options.rateLimitRetries ?? 2
  const fail = (message: string) => sourceHostUnavailable("github", message)
  const headers = () => ({
    authorization: `Bearer ${Redacted.value(options.token)}`,
    accept: "application/vnd.github+json",
    "x-github-api-version": "2022-11-28",
    "user-agent": "core-deploy"
  })
  const urlOf = (call: Pick<Call, "path" | "query">) => {
    const url = new URL(baseUrl + call.path)
    for (const [name, value] of Object.entries(call.query ?? {})) if (value !== undefined) url.searchParams.set(name, value)
    return url
  }

  /** Check an answer's status: a rate limit is waited out (`retry`), a refusal or a 5xx fails. */
  const judge = (response: Response, body: any, what: string, attempt: number) =>
    Effect.gen(function*() {
      const wait = rateLimitWait(response.status, response.headers, Date.now())
      if (wait !== undefined) {
        if (attempt < rateLimitRetries && wait <= maxRetryAfter) {
          yield* Effect.logDebug(`GitHub rate limit on ${what}; waiting ${wait} ms`)
          yield* Effect.sleep(Duration.millis(wait))
          return "retry" as const
        }
        return yield* fail(`GitHub rate limit on ${what} (wait ${Math.ceil(wait / 1000)} s): ${describe(body, response.status)}`)
      }
      if (response.status === 401) return yield* fail(`GitHub refused the token (GITHUB_TOKEN) for ${what}: ${describe(body, 401)}`)
      if (response.status === 403) {
        return yield* fail(`GitHub forbade ${what}: ${describe(body, 403)}; check the token's permissions (contents, administration)`)
      }
      if (response.status >= 500) return yield* fail(`GitHub API error ${response.status} on ${what}: ${describe(body, response.status)}`)
      if (response.status >= 400 && ![404, 409, 422].includes(response.status)) {
        return yield* fail(`GitHub ${what} failed (${response.status}): ${describe(body, response.status)}`)
      }
      return "done" as const
    })

  const send = <A>(call: Call, init: (signal: AbortSignal) => Promise<A>) =>
    Effect.tryPromise({
      try: (signal) => init(AbortSignal.any([signal, AbortSignal.timeout(timeout)])),
      catch: (cause) =>
        fail(cause instanceof Error && cause.name === "TimeoutError"
          ? `GitHub did not answer ${call.method} ${call.path} within ${timeout} ms`
          : `GitHub unreachable (${call.method} ${call.path}): ${cause instanceof Error ? cause.message.slice(0, 200) : String(cause)}`)
    })

  /** Make a JSON call. */
  const request = (call: Call): Effect.Effect<Answer, UpstreamUnavailable> =>
    Effect.gen(function*() {
      const what = `${call.method} ${call.path}`
      for (let attempt = 0;; attempt++) {
        const { response, text } = yield* send(call, (signal) =>
          fetch(urlOf(call), {
            method: call.method,
            headers: call.json === undefined ? headers() : { ...headers(), "content-type": "application/json" },
            ...(call.json === undefined ? {} : { body: JSON.stringify(call.json) }),
            signal
          }).then(async (response) => ({ response, text: await response.text() })))
        let body: any = undefined
        try {
          body = text === "" ? undefined : JSON.parse(text)
        } catch {
          body = undefined
        }
        if ((yield* judge(response, body, what, attempt)) === "retry") continue
        if (response.ok && body === undefined && text !== "") return yield* fail(`GitHub answered ${what} with a body that is not JSON`)
        return { status: response.status, body }
      }
    }).pipe(Effect.withSpan("GitHubApi.request", { attributes: { method: call.method, path: call.path } }))

  /** Download a binary answer (a tarball; GitHub redirects to its download host) as a web stream. */
  const download = (path: string): Effect.Effect<ReadableStream<Uint8Array>, UpstreamUnavailable> =>
    Effect.gen(function*() {
      const call: Call = { method: "GET", path }
      for (let attempt = 0;; attempt++) {
        const response = yield* send(call, (signal) => fetch(urlOf(call), { headers: headers(), redirect: "follow", signal }))
        if (response.ok && response.body !== null) return response.body
        const text = yield* Effect.promise(() => response.text().catch(() => ""))
        let body: any = undefined
        try {
          body = JSON.parse(text)
        } catch {
          body = undefined
        }
        if ((yield* judge(response, body, `GET ${path}`, attempt)) === "retry") continue
        return yield* fail(`GitHub GET ${path} failed (${response.status}): ${describe(body, response.status)}`)
      }
    }).pipe(Effect.withSpan("GitHubApi.download", { attributes: { path } }))

  return { request, download, fail } as const
}

/** The client `make` builds. */
export type GitHubApi = ReturnType<typeof make>

/** A path segment, encoded. */
export const seg = (value: string): string => encodeURIComponent(value)
