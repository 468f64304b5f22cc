import { ErrorResponse } from "@core/kernel"
import type { ErrorCode } from "@core/contracts"
import { randomUUID } from "node:crypto"
import type * as http from "node:http"
import type { Duplex } from "node:stream"

const REASONS: Readonly<Record<number, string>> = {
  400: "Bad Request",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
  503: "Service Unavailable"
}

/** An error envelope the listener answers itself (the gateway never saw the request). */
export const description = (
  status: number,
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {}
): ErrorResponse.ErrorDescription => ({ status, code, message, details: null, headers })

/** The headers every answer of the listener carries (the gateway's own security headers among them). */
const baseHeaders = (requestId: string, length: number): Record<string, string> => ({
  "content-type": "application/json",
  "content-length": String(length),
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-request-id": requestId
})

/** Answer on a `ServerResponse` whose head is not sent yet, closing the connection after. */
export const answer = (response: http.ServerResponse, error: ErrorResponse.ErrorDescription, requestId = randomUUID()) => {
  const body = JSON.stringify(ErrorResponse.envelope(error, requestId))
  response.shouldKeepAlive = false
  response.writeHead(error.status, { ...baseHeaders(requestId, Buffer.byteLength(body)), ...error.headers, connection: "close" })
  response.end(body)
}

/** Answer on a raw socket (Node's `clientError`: the request could not be parsed), then close it. */
export const answerOnSocket = (socket: Duplex, error: ErrorResponse.ErrorDescription) => {
  const requestId = randomUUID()
  const body = JSON.stringify(ErrorResponse.envelope(error, requestId))
  const headers = { ...baseHeaders(requestId, Buffer.byteLength(body)), ...error.headers, connection: "close" }
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("")
  socket.end(`HTTP/1.1 ${error.status} ${REASONS[error.status] ?? ""}\r\n${head}\r\n${body}`)
}

/**
 * What a `clientError` answers: 431 for a head over Node's header limit (URL included), 408 when
 * the head or the whole request took too long, 400 for anything Node could not parse.
 */
export const describeClientError = (error: NodeJS.ErrnoException): ErrorResponse.ErrorDescription => {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return description(431, "HEADERS_TOO_LARGE", "The request line and headers are larger than the server accepts")
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return description(408, "REQUEST_TIMEOUT", "The request took too long to arrive")
    default:
      return description(400, "BAD_REQUEST", "The request is not valid HTTP")
  }
}
