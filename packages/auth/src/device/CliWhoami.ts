import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { ErrorResponse, RequestId, Unauthorized } from "@core/kernel"
import { Cause, Effect, Option } from "effect"
import { bearerOf, cookieOf } from "../accounts/AuthenticationLive.js"
import { CliIdentity } from "./CliIdentity.js"

const noCredentials = new Unauthorized({ message: "Authentication required" })

/** The credential of a whoami request: the bearer, else `x-api-key`, else the session cookie. */
const credentialOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const apiKey = request.headers["x-api-key"]?.trim()
  return bearerOf(request) ?? (apiKey === undefined || apiKey === "" ? undefined : apiKey) ?? cookieOf(request)
}

const whoami = Effect.gen(function*() {
  const credential = credentialOf(yield* HttpServerRequest.HttpServerRequest)
  if (credential === undefined) return yield* noCredentials
  const identity = yield* (yield* CliIdentity).identify(credential)
  return HttpServerResponse.unsafeJson(identity, { headers: { "cache-control": "no-store" } })
})

const respond = (status: number, code: string, message: string, requestId: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson({ error: { code, message, requestId } }, {
    status,
    headers: { ...headers, "cache-control": "no-store", "x-request-id": requestId }
  })

/**
 * Answer a whoami failure with the envelope as the seed shows it for this route:
 * `{ error: { code, message, requestId } }`, without `details`.
 */
const handleWhoamiCause = <E>(cause: Cause.Cause<E>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const requestId = RequestId.requestIdOf(request)
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure) && ErrorResponse.isCoreError(failure.value)) {
      const described = ErrorResponse.describe(failure.value)
      return respond(described.status, described.code, described.message, requestId, described.headers)
    }
    yield* Effect.logError("unhandled request failure", Cause.pretty(cause)).pipe(
      Effect.annotateLogs({ requestId, method: request.method, url: request.url })
    )
    return respond(500, "INTERNAL_ERROR", "An internal error occurred", requestId)
  })

/**
 * `POST /api/v1/cli/whoami`: the identity behind the `core` command's credentials — a session token
 * (`Authorization: Bearer`) or an API key (`x-api-key: core_…`, or as the bearer).
 */
export const CliWhoamiRouter = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v1/cli/whoami", whoami),
  HttpRouter.catchAllCause(handleWhoamiCause)
)
