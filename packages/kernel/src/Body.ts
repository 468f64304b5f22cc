import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect, Option, Stream } from "effect"
import type { z } from "zod"
import { InvalidJson, PayloadTooLarge, UnsupportedMediaType, type ValidationError } from "./Errors.js"
import { decode } from "./Validation.js"

/** The default body limit of a route: 1 MiB (decision 0020). */
export const DEFAULT_LIMIT = 1024 * 1024

/** Per-route reading options. */
export interface Options {
  /**
   * The most bytes the body may have; more answers 413 `PAYLOAD_TOO_LARGE`.
   * @default 1048576 (1 MiB)
   */
  readonly limit?: number
}

interface ChunkReader {
  readonly read: () => Promise<Uint8Array | undefined>
  readonly release: () => void
}

interface NodeReadable {
  read(): Uint8Array | null
  on(event: string, listener: (...args: Array<any>) => void): unknown
  off(event: string, listener: (...args: Array<any>) => void): unknown
  resume(): unknown
  readonly readableEnded: boolean
}

const isWebRequest = (u: unknown): u is Request =>
  typeof u === "object" && u !== null && "body" in u && "bodyUsed" in u && "headers" in u

const isNodeReadable = (u: unknown): u is NodeReadable =>
  typeof u === "object" && u !== null && typeof (u as NodeReadable).read === "function" &&
  typeof (u as NodeReadable).on === "function" && typeof (u as NodeReadable).resume === "function"

const emptyReader: ChunkReader = { read: () => Promise.resolve(undefined), release: () => {} }

const DRAIN_LIMIT = 64 * 1024 * 1024

/**
 * Reads a web stream. Released early, it goes on discarding the rest in the background (up to
 * 64 MiB, then cancels): the answer goes out at once, and the connection stays usable on hosts that
 * stall when a body is left half read (`@hono/node-server`).
 */
const webReader = (body: ReadableStream<Uint8Array>): ChunkReader => {
  const reader = body.getReader()
  let ended = false
  const discard = async () => {
    let discarded = 0
    while (discarded <= DRAIN_LIMIT) {
      const { done, value } = await reader.read()
      if (done) return
      discarded += value.byteLength
    }
    await reader.cancel()
  }
  return {
    read: async () => {
      const { done, value } = await reader.read()
      ended = done
      return done ? undefined : value
    },
    release: () => {
      if (!ended) discard().catch(() => {})
    }
  }
}

/**
 * Reads a Node stream. On release the rest is discarded as Node does for unread bodies, never
 * destroyed: destroying the request would reset the socket before the 413 reaches the client.
 */
const nodeReader = (source: NodeReadable): ChunkReader => {
  let wake: (() => void) | undefined
  let ended = false
  let failure: { readonly error: unknown } | undefined
  const notify = () => {
    const resume = wake
    wake = undefined
    resume?.()
  }
  const onEnd = () => {
    ended = true
    notify()
  }
  const onError = (error: unknown) => {
    failure = { error }
    notify()
  }
  source.on("readable", notify)
  source.on("end", onEnd)
  source.on("error", onError)
  return {
    read: async () => {
      while (true) {
        if (failure !== undefined) throw failure.error
        const chunk = source.read()
        if (chunk !== null) return chunk
        if (ended || source.readableEnded) return undefined
        await new Promise<void>((resolve) => (wake = resolve))
      }
    },
    release: () => {
      source.off("readable", notify)
      source.off("end", onEnd)
      source.off("error", onError)
      if (!ended) source.resume()
    }
  }
}

const readerOf = (request: HttpServerRequest.HttpServerRequest): ChunkReader => {
  const source: unknown = request.source
  if (isWebRequest(source)) return source.body === null ? emptyReader : webReader(source.body)
  if (isNodeReadable(source)) return nodeReader(source)
  return emptyReader
}

const tooLarge = (limit: number) =>
  new PayloadTooLarge({ message: `The request body exceeds the limit of ${limit} bytes`, limit })

const isPayloadTooLarge = (u: unknown): u is PayloadTooLarge =>
  typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "PayloadTooLarge"

/** A read failure: an adapter's own limit stays a 413, anything else (a vanished client) is a defect. */
const readFailure = (error: unknown): Effect.Effect<never, PayloadTooLarge> =>
  isPayloadTooLarge(error) ? Effect.fail(error) : Effect.die(error)

const declaredTooLarge = (request: HttpServerRequest.HttpServerRequest, limit: number): boolean => {
  const declared = Number(request.headers["content-length"])
  return Number.isFinite(declared) && declared > limit
}

/** Refuse a body announced too large without keeping it: what arrives is discarded as on any early release. */
const refuse = (request: HttpServerRequest.HttpServerRequest, limit: number): Effect.Effect<never, PayloadTooLarge> =>
  Effect.zipRight(Effect.sync(() => readerOf(request).release()), Effect.fail(tooLarge(limit)))

/**
 * The raw request body as a stream of chunks, counted as they arrive: fails with
 * `PayloadTooLarge` (413) once over `limit`, or at once when `Content-Length` announces more.
 * For large uploads that go straight to storage.
 */
export const stream = (
  options?: Options
): Stream.Stream<Uint8Array, PayloadTooLarge, HttpServerRequest.HttpServerRequest> => {
  const limit = options?.limit ?? DEFAULT_LIMIT
  return Stream.unwrapScoped(Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (declaredTooLarge(request, limit)) return Stream.fromEffect(refuse(request, limit))
    const reader = yield* Effect.acquireRelease(Effect.sync(() => readerOf(request)), (reader) => Effect.sync(reader.release))
    let seen = 0
    return Stream.repeatEffectOption(
      Effect.tryPromise({ try: reader.read, catch: (error) => error }).pipe(
        Effect.catchAll(readFailure),
        Effect.mapError((error) => Option.some(error)),
        Effect.flatMap((chunk) => {
          if (chunk === undefined) return Effect.fail(Option.none())
          seen += chunk.byteLength
          return seen > limit ? Effect.fail(Option.some(tooLarge(limit))) : Effect.succeed(chunk)
        })
      )
    )
  }))
}

const concat = (chunks: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  if (chunks.length === 1) return chunks[0]
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}

const readAll = async (reader: ChunkReader, limit: number): Promise<Uint8Array | PayloadTooLarge> => {
  const chunks: Array<Uint8Array> = []
  let size = 0
  while (true) {
    const chunk = await reader.read()
    if (chunk === undefined) return concat(chunks, size)
    size += chunk.byteLength
    if (size > limit) return tooLarge(limit)
    chunks.push(chunk)
  }
}

/**
 * The whole request body as bytes, counted as they stream in: `PayloadTooLarge` (413) once over
 * `limit` (default 1 MiB), or at once when `Content-Length` announces more.
 */
export const bytes = (options?: Options): Effect.Effect<Uint8Array, PayloadTooLarge, HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function*() {
    const limit = options?.limit ?? DEFAULT_LIMIT
    const request = yield* HttpServerRequest.HttpServerRequest
    if (declaredTooLarge(request, limit)) return yield* refuse(request, limit)
    const result = yield* Effect.acquireUseRelease(
      Effect.sync(() => readerOf(request)),
      (reader) => Effect.tryPromise({ try: () => readAll(reader, limit), catch: (error) => error }),
      (reader) => Effect.sync(reader.release)
    ).pipe(Effect.catchAll(readFailure))
    return isPayloadTooLarge(result) ? yield* result : result
  })

/** Whether a `Content-Type` names JSON in UTF-8 (`application/json`, charset `utf-8` or none). */
export const isJsonContentType = (header: string | undefined): boolean => {
  if (header === undefined) return false
  const [type, ...parameters] = header.split(";")
  if (type.trim().toLowerCase() !== "application/json") return false
  return parameters.every((parameter) => {
    const [name, value = ""] = parameter.split("=")
    return name.trim().toLowerCase() !== "charset" || value.trim().replace(/^"|"$/g, "").toLowerCase() === "utf-8"
  })
}

const utf8 = new TextDecoder("utf-8", { fatal: true })

const parseJson = (body: Uint8Array): Effect.Effect<unknown, InvalidJson> =>
  Effect.try({
    try: () => JSON.parse(utf8.decode(body)) as unknown,
    catch: () => new InvalidJson({ message: "The request body is not valid JSON" })
  })

/**
 * Read a JSON request body and parse it with a contract: 415 `UNSUPPORTED_MEDIA_TYPE` unless
 * `Content-Type` is `application/json`, 413 `PAYLOAD_TOO_LARGE` over the route's limit (default 1 MiB),
 * 400 `INVALID_JSON` when malformed, 400 `VALIDATION_ERROR` with the issues when it breaks the contract.
 *
 * @example
 * const input = yield* Body.json(CreatePlatform)
 * const upload = yield* Body.json(Manifest, { limit: 100 * 1024 * 1024 })
 */
export const json = <S extends z.ZodType>(
  schema: S,
  options?: Options
): Effect.Effect<
  z.output<S>,
  UnsupportedMediaType | PayloadTooLarge | InvalidJson | ValidationError,
  HttpServerRequest.HttpServerRequest
> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!isJsonContentType(request.headers["content-type"])) {
      return yield* new UnsupportedMediaType({ message: "Content-Type must be application/json" })
    }
    const value = yield* Effect.flatMap(bytes(options), parseJson)
    return yield* decode(schema, value, "body")
  })

/** The search parameters of a URL as a record: a repeated name becomes an array. */
export const searchParamsRecord = (url: string): Record<string, string | Array<string>> => {
  const query = url.indexOf("?")
  const record: Record<string, string | Array<string>> = {}
  if (query === -1) return record
  for (const [name, value] of new URLSearchParams(url.slice(query + 1))) {
    const known = record[name]
    record[name] = known === undefined ? value : Array.isArray(known) ? [...known, value] : [known, value]
  }
  return record
}

/** Parse the query string with a contract (400 `VALIDATION_ERROR` with the issues). */
export const query = <S extends z.ZodType>(
  schema: S
): Effect.Effect<z.output<S>, ValidationError, HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    decode(schema, searchParamsRecord(request.url), "query"))

/** Parse the route's path parameters with a contract (400 `VALIDATION_ERROR` with the issues). */
export const params = <S extends z.ZodType>(
  schema: S
): Effect.Effect<z.output<S>, ValidationError, HttpRouter.RouteContext> =>
  Effect.flatMap(HttpRouter.params, (values) => decode(schema, values, "params"))
