import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { ErrorResponse, Unauthorized } from "@core/kernel"
import { Effect } from "effect"
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

/**
 * The envelope as the seed shows it for this route, `{ error: { code, message, requestId } }`
 * without `details`, for the kernel's error skeleton.
 */
const whoamiRenderer: ErrorResponse.Renderer = {
  render: (problem, requestId) =>
    HttpServerResponse.unsafeJson({ error: { code: problem.code, message: problem.message, requestId } }, {
      status: problem.status,
      headers: { ...problem.headers, "cache-control": "no-store" }
    })
}

/**
 * `POST /api/v1/cli/whoami`: the identity behind the `core` command's credentials — a session token
 * (`Authorization: Bearer`) or an API key (`x-api-key: core_…`, or as the bearer).
 */
export const CliWhoamiRouter = HttpRouter.empty.pipe(
  HttpRouter.post("/api/v1/cli/whoami", whoami),
  HttpRouter.catchAllCause(ErrorResponse.handleCauseWith(whoamiRenderer))
)
