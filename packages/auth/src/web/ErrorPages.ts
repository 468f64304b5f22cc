import { HttpServerResponse } from "@effect/platform"
import type { ErrorResponse } from "@core/kernel"
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
 * Pages for the kernel's error skeleton (never the JSON envelope: a person is reading): kernel
 * errors with their status, message and headers (`Retry-After`); an interruption or a defect as a
 * page that names the request id.
 */
export const pageRenderer: ErrorResponse.Renderer = {
  render: (problem, requestId) => {
    if (problem.kind !== "failure") {
      return HttpServerResponse.setHeaders(page(messagePage({
        title: "Something went wrong",
        message: "The page could not be served. Please try again in a moment.",
        requestId
      }), problem.status), problem.headers)
    }
    const title = TITLES[problem.status] ?? "Something went wrong"
    return HttpServerResponse.setHeaders(page(messagePage({ title, message: problem.message, requestId }), problem.status), problem.headers)
  }
}
