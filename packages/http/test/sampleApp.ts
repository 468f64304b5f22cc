import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Body, NotFound } from "@core/kernel"
import { Effect, Stream } from "effect"
import { z } from "zod"

/** The contract of `POST /echo`. */
export const Echo = z.object({ message: z.string().min(1), count: z.number().int().min(1).max(10).optional() })

/** One sample service, mounted on every runtime by the tests. */
export const sampleApp = HttpRouter.empty.pipe(
  HttpRouter.get(
    "/hello",
    Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
      HttpServerResponse.unsafeJson({ hello: "world", path: request.url.split("?")[0], query: Body.searchParamsRecord(request.url) }))
  ),
  HttpRouter.get(
    "/mounted",
    Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
      HttpServerResponse.unsafeJson({ path: request.url.split("?")[0], prefix: request.headers["x-forwarded-prefix"] ?? null }))
  ),
  HttpRouter.post("/echo", Effect.map(Body.json(Echo), (echo) => HttpServerResponse.unsafeJson({ echo }))),
  HttpRouter.post(
    "/upload",
    Effect.map(Body.bytes({ limit: 10 * 1024 * 1024 }), (bytes) => HttpServerResponse.unsafeJson({ size: bytes.byteLength }))
  ),
  HttpRouter.get("/boom", Effect.die(new Error("kaboom: secret internals at line 42"))),
  HttpRouter.get("/missing-thing", Effect.fail(new NotFound({ message: "Thing not found" }))),
  HttpRouter.get(
    "/big",
    Effect.succeed(HttpServerResponse.stream(
      Stream.range(0, 127).pipe(Stream.map((i) => new Uint8Array(64 * 1024).fill(i % 256))),
      { contentType: "application/octet-stream" }
    ))
  ),
  HttpRouter.get("/slow", Effect.as(Effect.sleep("300 millis"), HttpServerResponse.text("finally")))
)
