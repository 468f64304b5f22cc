import { HttpApp, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Stream } from "effect"
import { z } from "zod"
import { Body, ErrorResponse } from "@core/kernel"

const Greeting = z.object({ name: z.string().min(1), times: z.number().int().positive().optional() })

const post = (body: BodyInit | null, headers: Record<string, string> = { "content-type": "application/json" }) =>
  HttpServerRequest.fromWeb(new Request("http://local/echo", { method: "POST", body, headers, duplex: "half" } as RequestInit))

const chunked = (sizes: ReadonlyArray<number>) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const size of sizes) controller.enqueue(new Uint8Array(size).fill(0x20))
      controller.close()
    }
  })

const run = <A, E>(effect: Effect.Effect<A, E, HttpServerRequest.HttpServerRequest>, request: HttpServerRequest.HttpServerRequest) =>
  Effect.either(Effect.provideService(effect, HttpServerRequest.HttpServerRequest, request))

const failureOf = <A, E>(result: Either.Either<A, E>): E => {
  if (Either.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`)
  return result.left
}

describe("Body.json", () => {
  it.effect("parses a JSON body with its contract, charset allowed", () =>
    Effect.gen(function*() {
      const plain = yield* run(Body.json(Greeting), post(JSON.stringify({ name: "ada" })))
      expect(plain).toEqual(Either.right({ name: "ada" }))
      const withCharset = yield* run(
        Body.json(Greeting),
        post(JSON.stringify({ name: "ada", times: 2 }), { "content-type": "Application/JSON; charset=\"UTF-8\"" })
      )
      expect(withCharset).toEqual(Either.right({ name: "ada", times: 2 }))
    }))

  it.effect("answers 415 for a missing or other content type, or another charset", () =>
    Effect.gen(function*() {
      const variants: Array<Record<string, string>> = [{}, { "content-type": "text/plain" }, { "content-type": "application/json; charset=latin1" }]
      for (const headers of variants) {
        const error = failureOf(yield* run(Body.json(Greeting), post("{}", headers)))
        expect(error).toMatchObject({ _tag: "UnsupportedMediaType", message: "Content-Type must be application/json" })
      }
    }))

  it.effect("refuses a declared Content-Length over the limit without waiting for the body", () =>
    Effect.gen(function*() {
      const never = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) })
      const request = post(never, { "content-type": "application/json", "content-length": "2000000" })
      const error = failureOf(yield* run(Body.json(Greeting), request))
      expect(error).toMatchObject({ _tag: "PayloadTooLarge", limit: Body.DEFAULT_LIMIT })
    }))

  it.effect("counts a streamed body without Content-Length and stops at the limit", () =>
    Effect.gen(function*() {
      const error = failureOf(yield* run(Body.json(Greeting), post(chunked([512 * 1024, 512 * 1024, 1]))))
      expect(error).toMatchObject({
        _tag: "PayloadTooLarge",
        message: "The request body exceeds the limit of 1048576 bytes",
        limit: 1048576
      })
    }))

  it.effect("takes a per-route limit", () =>
    Effect.gen(function*() {
      const big = JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) })
      expect(failureOf(yield* run(Body.json(Greeting), post(big)))).toMatchObject({ _tag: "PayloadTooLarge" })
      const ok = yield* run(Body.json(Greeting, { limit: 3 * 1024 * 1024 }), post(big))
      expect(Either.isRight(ok)).toBe(true)
      const small = yield* run(Body.json(Greeting, { limit: 8 }), post(JSON.stringify({ name: "ada" })))
      expect(failureOf(small)).toMatchObject({ _tag: "PayloadTooLarge", limit: 8 })
    }))

  it.effect("answers INVALID_JSON for malformed JSON, an empty body and bytes that are not UTF-8", () =>
    Effect.gen(function*() {
      for (const body of ["{\"name\":", "", new Uint8Array([0x22, 0xff, 0x22])]) {
        const error = failureOf(yield* run(Body.json(Greeting), post(body)))
        expect(error).toEqual(expect.objectContaining({ _tag: "InvalidJson", message: "The request body is not valid JSON" }))
      }
    }))

  it.effect("answers VALIDATION_ERROR with the issues", () =>
    Effect.gen(function*() {
      const error = failureOf(yield* run(Body.json(Greeting), post(JSON.stringify({ name: "", times: -1 }))))
      expect(error).toMatchObject({ _tag: "ValidationError", message: "Invalid request body" })
      expect(error._tag === "ValidationError" && error.issues.map((issue) => issue.path)).toEqual(["name", "times"])
    }))
})

describe("Body.bytes and Body.stream", () => {
  it.effect("read the raw body under the limit", () =>
    Effect.gen(function*() {
      const bytes = yield* run(Body.bytes(), post(chunked([3, 4]), {}))
      expect(Either.map(bytes, (b) => b.byteLength)).toEqual(Either.right(7))
      const chunks = yield* run(Stream.runCollect(Body.stream({ limit: 10 })), post(chunked([3, 4]), {}))
      expect(Either.map(chunks, (c) => Chunk.toArray(c).map((chunk) => chunk.byteLength))).toEqual(Either.right([3, 4]))
    }))

  it.effect("stream fails with PayloadTooLarge once over the limit", () =>
    Effect.gen(function*() {
      const result = yield* run(Stream.runCollect(Body.stream({ limit: 5 })), post(chunked([3, 4]), {}))
      expect(failureOf(result)).toMatchObject({ _tag: "PayloadTooLarge", limit: 5 })
    }))
})

describe("Body.query and Body.params", () => {
  const Search = z.object({ q: z.string(), limit: z.coerce.number().int().max(100), tag: z.array(z.string()).optional() })

  it("turns search parameters into a record, repeated names into arrays", () => {
    expect(Body.searchParamsRecord("/x?q=a%20b&tag=1&tag=2&tag=3")).toEqual({ q: "a b", tag: ["1", "2", "3"] })
    expect(Body.searchParamsRecord("/x")).toEqual({})
  })

  it.effect("parses the query with its contract", () =>
    Effect.gen(function*() {
      const request = HttpServerRequest.fromWeb(new Request("http://local/items?q=plants&limit=20&tag=a&tag=b"))
      expect(yield* run(Body.query(Search), request)).toEqual(Either.right({ q: "plants", limit: 20, tag: ["a", "b"] }))
      const bad = yield* run(Body.query(Search), HttpServerRequest.fromWeb(new Request("http://local/items?limit=500")))
      expect(failureOf(bad)).toMatchObject({ _tag: "ValidationError", message: "Invalid request query" })
    }))

  it.effect("parses path parameters with their contract inside a route", () =>
    Effect.gen(function*() {
      const Item = z.object({ id: z.string().regex(/^itm_[a-z0-9]+$/) })
      const router = HttpRouter.empty.pipe(
        HttpRouter.get("/items/:id", Effect.map(Body.params(Item), (item) => HttpServerResponse.unsafeJson(item))),
        HttpRouter.catchAllCause(ErrorResponse.handleCause)
      )
      const handler = HttpApp.toWebHandler(router)
      const ok = yield* Effect.promise(() => handler(new Request("http://local/items/itm_42")))
      expect([ok.status, yield* Effect.promise(() => ok.json())]).toEqual([200, { id: "itm_42" }])
      const bad = yield* Effect.promise(() => handler(new Request("http://local/items/nope", { headers: { "x-request-id": "r1" } })))
      expect(bad.status).toBe(400)
      expect(yield* Effect.promise(() => bad.json())).toEqual({
        error: {
          code: "VALIDATION_ERROR",
          message: "Invalid request params",
          requestId: "r1",
          details: { issues: [{ path: "id", message: "Invalid string: must match pattern /^itm_[a-z0-9]+$/" }] }
        }
      })
    }))
})
