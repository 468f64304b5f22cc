/**
 * An `HttpServerResponse` written on Node's response, as `@effect/platform-node` writes it (the
 * same head: status, headers, cookies), the head written once. Bytes, text and empty bodies are
 * written at once; a body that streams is an effect that writes with backpressure.
 */
import { Cookies, type HttpServerResponse } from "@effect/platform"
import { Chunk, Effect, Stream } from "effect"
import type * as http from "node:http"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import type { ReadableStream as NodeReadableStream } from "node:stream/web"

type OutgoingHeaders = Record<string, string | Array<string>>

/** The response's headers, its cookies as `Set-Cookie` (as the platform's Node server sends them). */
const headersOf = (response: HttpServerResponse.HttpServerResponse): OutgoingHeaders => {
  if (Cookies.isEmpty(response.cookies)) return response.headers
  const headers: OutgoingHeaders = { ...response.headers }
  const cookies = Cookies.toSetCookieHeaders(response.cookies)
  const given = response.headers["set-cookie"]
  if (given !== undefined) cookies.push(given)
  headers["set-cookie"] = cookies
  return headers
}

/** A body that broke off after the head: the connection is cut, so the client cannot take it for whole. */
const cut = (res: http.ServerResponse) => {
  if (res.socket !== null) res.socket.destroy()
  else res.destroy()
}

const isPipeable = (u: unknown): u is NodeJS.ReadableStream =>
  typeof u === "object" && u !== null && typeof (u as { pipe?: unknown }).pipe === "function"

/** Pipe a Node or web stream to the response; interrupting the effect stops it. */
const piped = (res: http.ServerResponse, source: NodeJS.ReadableStream | ReadableStream<Uint8Array>): Effect.Effect<void> =>
  Effect.tryPromise((signal) =>
    pipeline(isPipeable(source) ? source : Readable.fromWeb(source as NodeReadableStream), res, { signal })
  ).pipe(Effect.catchAll(() => Effect.sync(() => cut(res))))

/** A stream of chunks written with backpressure: each chunk waits for `drain` when Node's buffer is full. */
const streamed = (res: http.ServerResponse, stream: Stream.Stream<Uint8Array, unknown>): Effect.Effect<void> =>
  Effect.suspend(() => {
    const drained = Effect.unsafeMakeLatch(true)
    const onDrain = () => drained.unsafeOpen()
    res.on("drain", onDrain)
    return Stream.runForEachChunk(stream, (chunk) => {
      let full = false
      for (const bytes of Chunk.toReadonlyArray(chunk)) full = !res.write(bytes)
      if (!full) return Effect.void
      drained.unsafeClose()
      return drained.await
    }).pipe(
      Effect.matchCause({ onSuccess: () => void res.end(), onFailure: () => cut(res) }),
      Effect.ensuring(Effect.sync(() => res.off("drain", onDrain)))
    )
  })

/** A raw body: bytes or text at once, a Node or web stream piped, anything else through a web `Response`. */
const raw = (res: http.ServerResponse, body: unknown): Effect.Effect<void> | undefined => {
  if (typeof body === "string" || body instanceof Uint8Array) return void res.end(body)
  if (body instanceof Response) return body.body === null ? void res.end() : piped(res, body.body)
  if (isPipeable(body) || body instanceof ReadableStream) return piped(res, body)
  const response = new Response(body as BodyInit)
  return response.body === null ? void res.end() : piped(res, response.body)
}

/**
 * Write `response` on `res`: at once (and `undefined`) when its body is there, else the effect that
 * streams it. A HEAD request gets the head alone; a response already ended is left alone.
 */
export const write = (
  res: http.ServerResponse,
  head: boolean,
  response: HttpServerResponse.HttpServerResponse
): Effect.Effect<void> | undefined => {
  if (res.writableEnded || res.destroyed) return undefined
  const body = response.body
  if (body._tag === "FormData") {
    const web = new Response(body.formData)
    const headers = { ...headersOf(response) }
    web.headers.forEach((value, name) => void (headers[name] = value))
    res.writeHead(response.status, headers)
    return head || web.body === null ? void res.end() : piped(res, web.body)
  }
  res.writeHead(response.status, headersOf(response))
  if (head) return void res.end()
  switch (body._tag) {
    case "Empty":
      return void res.end()
    case "Uint8Array":
      return void res.end(body.body)
    case "Raw":
      return raw(res, body.body)
    case "Stream":
      return streamed(res, body.stream)
  }
}

/** Answer a bare 500 when nothing could be rendered (the renderer itself failed); a started answer is cut. */
export const writeFailure = (res: http.ServerResponse): void => {
  if (res.writableEnded || res.destroyed) return
  if (res.headersSent) return cut(res)
  res.writeHead(500, { "content-length": "0" })
  res.end()
}
