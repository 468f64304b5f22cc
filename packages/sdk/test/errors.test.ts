import { afterEach, describe, expect, it } from "vitest"
import {
  BadRequestError,
  CoreApiError,
  CoreError,
  ForbiddenError,
  InternalServerError,
  NotFoundError,
  PlatformSuspendedError,
  RateLimitError,
  UnauthorizedError,
  createClient
} from "../src/index.js"
import { envelope, startScriptServer, type ScriptServer } from "./script-server.js"

let server: ScriptServer | undefined
afterEach(async () => server?.close())

const failWith = async (reply: Parameters<typeof startScriptServer>[0]): Promise<unknown> => {
  server = await startScriptServer(reply)
  return createClient({ baseUrl: server.url, retry: 0 }).request("GET", "/api/v1/things/thg_1").catch((e: unknown) => e)
}

describe("error mapping", () => {
  it("parses the envelope into a status-keyed CoreApiError with exact fields", async () => {
    const error = await failWith([{ status: 404, body: envelope("NOT_FOUND", "Thing not found", "req_404") }])
    expect(error).toBeInstanceOf(NotFoundError)
    expect(error).toBeInstanceOf(CoreApiError)
    expect(error).toBeInstanceOf(CoreError)
    expect(error).toMatchObject({
      name: "NotFoundError",
      status: 404,
      code: "NOT_FOUND",
      message: "Thing not found",
      requestId: "req_404",
      details: null
    })
  })

  it("keeps the validation details", async () => {
    const details = { issues: [{ path: "name", message: "Required" }] }
    const error = await failWith([{ status: 400, body: envelope("VALIDATION_ERROR", "Invalid body", "req_400", details) }])
    expect(error).toBeInstanceOf(BadRequestError)
    expect(error).toMatchObject({ status: 400, code: "VALIDATION_ERROR", requestId: "req_400", details })
  })

  it.each([
    [401, UnauthorizedError, "UNAUTHORIZED"],
    [403, ForbiddenError, "FORBIDDEN"],
    [451, PlatformSuspendedError, "PLATFORM_SUSPENDED"],
    [500, InternalServerError, "INTERNAL_ERROR"],
    [504, InternalServerError, "UPSTREAM_TIMEOUT"]
  ])("maps %i to its class", async (status, ErrorClass, code) => {
    const error = await failWith([{ status, body: envelope(code, "m", "req_x") }])
    expect(error).toBeInstanceOf(ErrorClass)
    expect(error).toMatchObject({ status, code })
  })

  it("maps a status without its own class to CoreApiError", async () => {
    const error = await failWith([{ status: 418, body: envelope("TEAPOT", "short and stout", "req_418") }])
    expect(Object.getPrototypeOf(error)).toBe(CoreApiError.prototype)
    expect(error).toMatchObject({ name: "CoreApiError", status: 418, code: "TEAPOT" })
  })

  it("gives code HTTP_<status> for a text body, with the request id from the header", async () => {
    const error = await failWith([{ status: 502, headers: { "x-request-id": "req_hdr" }, body: "<html>bad gateway</html>" }])
    expect(error).toBeInstanceOf(InternalServerError)
    expect(error).toMatchObject({
      status: 502,
      code: "HTTP_502",
      message: "HTTP 502 Bad Gateway",
      requestId: "req_hdr",
      details: null,
      body: "<html>bad gateway</html>"
    })
  })

  it("gives code HTTP_<status> for a JSON body that is not an envelope, keeping the body", async () => {
    const body = { code: "INVALID_EMAIL_OR_PASSWORD", message: "Invalid email or password" }
    const error = await failWith([{ status: 401, body }])
    expect(error).toBeInstanceOf(UnauthorizedError)
    expect(error).toMatchObject({ status: 401, code: "HTTP_401", requestId: null, details: null, body })
  })

  it("gives code HTTP_<status> for an empty body", async () => {
    const error = await failWith([{ status: 403 }])
    expect(error).toMatchObject({ status: 403, code: "HTTP_403", message: "HTTP 403 Forbidden", body: null })
  })

  it("exposes Retry-After on a RateLimitError", async () => {
    const error = await failWith([{ status: 429, headers: { "retry-after": "7" }, body: envelope("RATE_LIMITED", "Slow down", "req_429") }])
    expect(error).toBeInstanceOf(RateLimitError)
    expect((error as RateLimitError).retryAfterMs).toBe(7000)
  })
})
