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

/**
 * A host's own 404 for a person (the all-in-one server's answer to a browser at a path nothing
 * serves): the pages' look, the path it looked for, a link to the start page and the request id.
 * The kernel's skeleton adds `X-Request-Id`.
 */
export const notFoundPageRenderer = (path: string): ErrorResponse.Renderer => ({
  render: (_problem, requestId) =>
    page(messagePage({
      title: TITLES[404]!,
      message: `There is no page at ${path}.`,
      link: { href: "/", label: "Go to the start page" },
      requestId
    }), 404)
})
