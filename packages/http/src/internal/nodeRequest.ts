/**
 * The `HttpServerRequest` of the Node runner: Node's `IncomingMessage` itself as the source (so
 * `Body` counts its bytes, and `NodeHttpServerRequest.toIncomingMessage`/`toServerResponse` work),
 * one small object per request whose other parts are computed only when read.
 */
import { Cookies, type Headers, HttpIncomingMessage, HttpServerError, HttpServerRequest, Multipart, UrlParams } from "@effect/platform"
import { Effect, Inspectable, Option, Stream } from "effect"
import type * as http from "node:http"

const decodeError = (request: HttpServerRequest.HttpServerRequest, cause: unknown) =>
  new HttpServerError.RequestError({ request, reason: "Decode", cause })

/** The whole body, failing past `maxBytes` (the platform's `MaxBodySize`); what is left is discarded. */
const readAll = (source: http.IncomingMessage, maxBytes: number | undefined): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const settle = () => {
      source.off("data", onData).off("end", onEnd).off("error", reject)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength
      if (maxBytes === undefined || size <= maxBytes) return void chunks.push(chunk)
      settle()
      source.resume()
      reject(new Error(`The request body exceeds ${maxBytes} bytes`))
    }
    const onEnd = () => {
      settle()
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size))
    }
    source.on("data", onData).on("end", onEnd).on("error", reject)
  })

/**
 * A Node request as `@effect/platform` sees it. Its `url` is what the route matched (the router
 * keeps the raw path and query); `modify` answers a copy, as the platform's requests do.
 */
export class NodeRequest implements HttpServerRequest.HttpServerRequest {
  declare readonly [HttpServerRequest.TypeId]: HttpServerRequest.TypeId
  declare readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId
  private body: Promise<Buffer> | undefined
  private parsedCookies: Record<string, string> | undefined
  private persisted: HttpServerRequest.HttpServerRequest["multipart"] | undefined

  constructor(
    readonly source: http.IncomingMessage,
    readonly response: http.ServerResponse,
    readonly url: string,
    private readonly headersOverride?: Headers.Headers,
    private readonly remoteAddressOverride?: string
  ) {}

  get method(): HttpServerRequest.HttpServerRequest["method"] {
    return this.source.method as HttpServerRequest.HttpServerRequest["method"]
  }

  get originalUrl(): string {
    return this.source.url ?? "/"
  }

  get headers(): Headers.Headers {
    return this.headersOverride ?? (this.source.headers as Headers.Headers)
  }

  get remoteAddress(): Option.Option<string> {
    return Option.fromNullable(this.remoteAddressOverride ?? this.source.socket.remoteAddress)
  }

  get cookies(): Record<string, string> {
    return this.parsedCookies ??= Cookies.parseHeader(this.headers.cookie ?? "")
  }

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpServerError.RequestError> {
    return Effect.map(this.bytes, (bytes) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer)
  }

  get text(): Effect.Effect<string, HttpServerError.RequestError> {
    return Effect.map(this.bytes, (bytes) => bytes.toString("utf8"))
  }

  get json(): Effect.Effect<unknown, HttpServerError.RequestError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({ try: () => (text === "" ? null : JSON.parse(text)) as unknown, catch: (cause) => decodeError(this, cause) }))
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpServerError.RequestError> {
    return Effect.map(this.text, (text) => UrlParams.fromInput(new URLSearchParams(text)))
  }

  get stream(): Stream.Stream<Uint8Array, HttpServerError.RequestError> {
    return Stream.suspend(() =>
      Stream.fromAsyncIterable<Uint8Array, HttpServerError.RequestError>(
        this.source.iterator({ destroyOnReturn: false }),
        (cause) => decodeError(this, cause)
      )
    )
  }

  get multipartStream(): Stream.Stream<Multipart.Part, Multipart.MultipartError> {
    return Stream.pipeThroughChannel(
      Stream.mapError(this.stream, (cause) => new Multipart.MultipartError({ reason: "InternalError", cause })),
      Multipart.makeChannel(this.headers)
    )
  }

  get multipart(): HttpServerRequest.HttpServerRequest["multipart"] {
    return this.persisted ??= Effect.runSync(Effect.cached(Multipart.toPersisted(this.multipartStream)))
  }

  get upgrade(): HttpServerRequest.HttpServerRequest["upgrade"] {
    return Effect.fail(new HttpServerError.RequestError({ request: this, reason: "Decode", description: "not an upgradeable ServerRequest" }))
  }

  modify(options: { readonly url?: string; readonly headers?: Headers.Headers; readonly remoteAddress?: string }): NodeRequest {
    return new NodeRequest(
      this.source,
      this.response,
      options.url ?? this.url,
      options.headers ?? this.headersOverride,
      options.remoteAddress ?? this.remoteAddressOverride
    )
  }

  /** The body read once, under the platform's `MaxBodySize` (routes count theirs with `Body`). */
  private get bytes(): Effect.Effect<Buffer, HttpServerError.RequestError> {
    return Effect.flatMap(HttpIncomingMessage.MaxBodySize, (max) =>
      Effect.tryPromise({
        try: () => this.body ??= readAll(this.source, Option.isSome(max) ? Number(max.value) : undefined),
        catch: (cause) => decodeError(this, cause)
      }))
  }

  toString(): string {
    return `ServerRequest(${this.method} ${this.url})`
  }

  toJSON(): unknown {
    return HttpIncomingMessage.inspect(this, { _id: "@effect/platform/HttpServerRequest", method: this.method, url: this.originalUrl })
  }

  [Inspectable.NodeInspectSymbol](): unknown {
    return this.toJSON()
  }
}

Object.defineProperty(NodeRequest.prototype, HttpServerRequest.TypeId, { value: HttpServerRequest.TypeId })
Object.defineProperty(NodeRequest.prototype, HttpIncomingMessage.TypeId, { value: HttpIncomingMessage.TypeId })
