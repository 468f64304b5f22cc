import { type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Iam } from "@core/contracts"
import { type ErrorResponse, Route } from "@core/kernel"
import { Effect } from "effect"
import { bearerOf, cookieOf } from "../accounts/CurrentSession.js"
import { CliIdentity } from "./CliIdentity.js"
import { authenticationRequired } from "../Errors.js"

/**
 * The credential of a whoami request: the bearer, else `x-api-key`, else the session cookie. Read
 * here rather than through the kernel's `Callers`, which takes a bearer for a session only: the
 * `core` command may send its API key as the bearer, and `CliIdentity` tells the two apart.
 */
const credentialOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const apiKey = request.headers["x-api-key"]?.trim()
  return bearerOf(request) ?? (apiKey === undefined || apiKey === "" ? undefined : apiKey) ?? cookieOf(request)
}

const whoami = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const credential = credentialOf(request)
    if (credential === undefined) return yield* authenticationRequired
    const identities = yield* CliIdentity
    return Route.json(yield* identities.identify(credential), { headers: { "cache-control": "no-store" } })
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
export const CliWhoamiHandlers = Route.rendered(whoamiRenderer, [
  Route.handle(Iam.DeviceRoutes.cliWhoami, ({ request }) => whoami(request))
] as const)

