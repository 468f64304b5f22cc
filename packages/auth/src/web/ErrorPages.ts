import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { ErrorResponse, RequestId } from "@core/kernel"
import { Cause, Effect, Option } from "effect"
import { messagePage } from "./MessagePage.js"
import { page } from "./Respond.js"

const TITLES: Readonly<Record<number, string>> = {
  400: "This request could not be read",
  401: "Please sign in",
  403: "Not allowed",
  404: "Page not found",
  413: "This form is too large",
  415: "This form could not be read",
  429: "Too many attempts",
  502: "A service is not available"
}

/**
 * Answer a page's failure as a page (never the JSON envelope: a person is reading): kernel errors
 * with their status, message and headers (`Retry-After`), anything else logged and answered 500
 * with the request id. Apply with `HttpRouter.catchAllCause` to the pages only.
 */
export const handlePageCause = <E>(
  cause: Cause.Cause<E>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const requestId = RequestId.requestIdOf(request)
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure) && ErrorResponse.isCoreError(failure.value)) {
      const described = ErrorResponse.describe(failure.value)
      const title = TITLES[described.status] ?? "Something went wrong"
      return HttpServerResponse.setHeaders(
        page(messagePage({ title, message: described.message, requestId }), described.status),
        described.headers
      )
    }
    if (!Cause.isInterruptedOnly(cause)) {
      yield* Effect.logError("unhandled page failure", Cause.pretty(cause)).pipe(
        Effect.annotateLogs({ requestId, method: request.method, url: request.url.split("?")[0] })
      )
    }
    const status = Cause.isInterruptedOnly(cause) ? 503 : 500
    return page(messagePage({
      title: "Something went wrong",
      message: "The page could not be served. Please try again in a moment.",
      requestId
    }), status)
  })
