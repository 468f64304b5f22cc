import { PayloadTooLarge, RequestId } from "@core/kernel"
import { randomUUID } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"

/** Options of the Node-to-web bridge. */
export interface BridgeOptions {
  /**
   * The most request-body bytes the bridge streams to the app (routes set their own, smaller limits).
   * @default 104857600 (100 MiB, the largest route limit)
   */
  readonly maxBodySize?: number
  /**
   * The path the handler is mounted under (`/auth`): taken off request paths that start with it, and
   * sent as `X-Forwarded-Prefix` (a client's own value replaced), so that the service's links and form
   * actions follow the mount. A request outside it is passed on as it is.
   * @default "" (the root)
   */
  readonly prefix?: string
}

/** A web-standard handler. */
export type Handler = (request: Request) => Promise<Response>

const DEFAULT_MAX_BODY_SIZE = 100 * 1024 * 1024
const DRAIN_LIMIT = 8 * 1024 * 1024
const SAFE_HOST = /^[A-Za-z0-9.:[\]-]+$/

const tooLarge = (limit: number) =>
  new PayloadTooLarge({ message: `The request body exceeds the limit of ${limit} bytes`, limit })

interface Body {
  readonly stream: ReadableStream<Uint8Array>
  /** Stop feeding the stream (it errors if still open) and leave the request paused. */
  readonly settle: () => void
}

/** The body as a web stream: counted while read, paused (never destroyed) when the app stops reading. */
const bodyOf = (req: IncomingMessage, limit: number): Body => {
  let seen = 0
  let settled = false
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const settle = (error?: unknown) => {
    if (settled) return
    settled = true
    req.off("data", onData)
    req.pause()
    controller.error(error ?? new Error("The request ended before its body was read"))
  }
  const onData = (chunk: Buffer) => {
    seen += chunk.byteLength
    if (seen > limit) return settle(tooLarge(limit))
    controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
    if ((controller.desiredSize ?? 0) <= 0) req.pause()
  }
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c
      if (Number(req.headers["content-length"]) > limit) return settle(tooLarge(limit))
      if (req.readableEnded) return (settled = true, controller.close())
      req.on("data", onData)
      req.once("end", () => settled || (settled = true, req.off("data", onData), controller.close()))
      req.once("error", (error) => settle(error))
    },
    pull: () => void (settled || req.resume()),
    cancel: () => settle()
  })
  return { stream, settle }
}

/** Discard what the app left unread so the connection can serve its next request; give up past a bound. */
const drain = (req: IncomingMessage) => {
  if (req.complete || req.destroyed) return
  let discarded = 0
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.byteLength
    if (discarded > DRAIN_LIMIT) req.destroy()
  })
  req.resume()
}

const urlOf = (req: IncomingMessage, path: string): string => {
  const host = req.headers.host !== undefined && SAFE_HOST.test(req.headers.host) ? req.headers.host : "localhost"
  const protocol = (req.socket as { encrypted?: boolean }).encrypted ? "https" : "http"
  return `${protocol}://${host}${path}`
}

/** A body already read by the host (an Express body parser), passed on instead of the spent stream. */
export type ReadBody = string | Uint8Array<ArrayBuffer>

const normalize = (prefix: string | undefined): string => {
  const trimmed = (prefix ?? "").replace(/\/+$/, "")
  return trimmed === "" || trimmed.startsWith("/") ? trimmed : `/${trimmed}`
}

/**
 * Where a request is mounted: `stripped`, the path the host already took off (Express's
 * `req.baseUrl`), followed by `options.prefix` when the path starts with it (taken off here).
 */
const mountOf = (req: IncomingMessage, options: BridgeOptions | undefined, stripped: string) => {
  const prefix = normalize(options?.prefix)
  const url = req.url?.startsWith("/") ? req.url : `/${req.url ?? ""}`
  const path = url.split("?")[0]
  const under = prefix !== "" && (path === prefix || path.startsWith(`${prefix}/`))
  const rest = under ? url.slice(prefix.length) : url
  return {
    url: rest.startsWith("/") ? rest : `/${rest}`,
    prefix: `${normalize(stripped)}${under ? prefix : ""}`
  }
}

/**
 * Convert a Node request to a web `Request` whose body streams under `maxBodySize`; `stripped` is a
 * mount prefix the host already took off the path (sent on as `X-Forwarded-Prefix`).
 */
export const toRequest = (
  req: IncomingMessage,
  res: ServerResponse,
  options?: BridgeOptions,
  read?: ReadBody,
  stripped = ""
): Request => {
  const abort = new AbortController()
  const method = req.method ?? "GET"
  const body = method === "GET" || method === "HEAD" || read !== undefined
    ? undefined
    : bodyOf(req, options?.maxBodySize ?? DEFAULT_MAX_BODY_SIZE)
  res.once("close", () => {
    if (!res.writableFinished) abort.abort()
    body?.settle()
    drain(req)
  })
  const headers = new Headers()
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i][0] !== ":") headers.append(req.rawHeaders[i], req.rawHeaders[i + 1])
  }
  if (read !== undefined) headers.delete("content-length")
  const mount = mountOf(req, options, stripped)
  if (mount.prefix !== "") headers.set("x-forwarded-prefix", mount.prefix)
  return new Request(urlOf(req, mount.url), {
    method,
    headers,
    body: read ?? body?.stream,
    signal: abort.signal,
    duplex: "half"
  } as RequestInit)
}

/** Resolves when the response can take more, or is gone. */
const writable = (res: ServerResponse) =>
  new Promise<void>((resolve) => {
    const done = () => {
      res.off("drain", done)
      res.off("close", done)
      resolve()
    }
    res.on("drain", done)
    res.on("close", done)
  })

/** Stream a web `Response` to a Node response, honouring backpressure and a client that leaves. */
export const writeResponse = async (response: Response, res: ServerResponse): Promise<void> => {
  const headers: Record<string, string | Array<string>> = {}
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) headers["set-cookie"] = cookies
  res.writeHead(response.status, headers)
  if (response.body === null) return void res.end()
  const reader = response.body.getReader()
  const cancel = () => void reader.cancel().catch(() => {})
  res.once("close", cancel)
  try {
    for (let next = await reader.read(); !next.done && !res.destroyed; next = await reader.read()) {
      if (!res.write(next.value) && !res.destroyed) await writable(res)
    }
    res.end()
  } finally {
    res.off("close", cancel)
  }
}

const internalError = (req: IncomingMessage, res: ServerResponse) => {
  if (res.headersSent) return void res.end()
  const inbound = req.headers["x-core-request-id"] ?? req.headers["x-request-id"]
  const requestId = typeof inbound === "string" && RequestId.isValidRequestId(inbound) ? inbound : randomUUID()
  const error = { code: "INTERNAL_ERROR", message: "An internal error occurred", requestId, details: null }
  res.writeHead(500, { "content-type": "application/json", "x-request-id": requestId })
  res.end(JSON.stringify({ error }))
}

/** Serve a web handler from a Node `(req, res)` pair; a failure of the bridge itself answers a 500 envelope. */
export const handle = async (
  handler: Handler,
  req: IncomingMessage,
  res: ServerResponse,
  options?: BridgeOptions,
  read?: ReadBody,
  stripped = ""
) => {
  try {
    await writeResponse(await handler(toRequest(req, res, options, read, stripped)), res)
  } catch {
    internalError(req, res)
  }
}
