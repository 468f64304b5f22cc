import { EventEmitter } from "node:events"
import type { Readable } from "node:stream"
import { CliService, Deploy } from "@core/contracts"
import { Body, Route, Validation } from "@core/kernel"
import { HttpServerRequest } from "@effect/platform"
import { Effect, Stream } from "effect"
import { CliFeatures } from "./CliFeatures.js"
import { CliSecrets } from "./CliSecrets.js"
import { Deployments } from "./Deployments.js"
import { Repos } from "./Repos.js"
import { DeployStorage, type UploadBody } from "./Storage.js"
import { uploadNotGzip } from "./Errors.js"

const routes = Deploy.CliRoutes

const mediaType = (header: string | undefined) => (header ?? "").split(";")[0]!.trim().toLowerCase()

const hasNoBody = (request: HttpServerRequest.HttpServerRequest) => {
  const length = request.headers["content-length"]
  return request.headers["transfer-encoding"] === undefined && (length === undefined || length.trim() === "0")
}

const isNodeReadable = (source: unknown): source is Readable =>
  source instanceof EventEmitter && typeof (source as Readable).pipe === "function" && typeof (source as Readable).resume === "function" &&
  typeof (source as Readable).readableEnded === "boolean"

/**
 * How the upload's body is read: on Node (the gateway's in-process path, `serve --service cli`),
 * Node's request itself, counted by `Storage.receive` as it arrives (no Effect stream per chunk);
 * elsewhere, or when `Content-Length` already announces more than the limit (413 before reading),
 * the kernel's counted `Body.stream`.
 */
const uploadBody = (request: HttpServerRequest.HttpServerRequest, limit: number): UploadBody => {
  const source = request.source
  const declared = Number(request.headers["content-length"])
  if (isNodeReadable(source) && !(Number.isFinite(declared) && declared > limit)) return { _tag: "Node", source }
  return { _tag: "Stream", stream: Body.stream({ limit }).pipe(Stream.provideService(HttpServerRequest.HttpServerRequest, request)) }
}

/**
 * The deploy route's two forms (decision 0481): no body and no content type deploys the
 * repository's default branch; `application/gzip` uploads a built site, streamed; any other type 415.
 */
const deploy = Route.handle(routes.deploy, ({ caller, params, request }) =>
  Effect.gen(function*() {
    const headers = yield* Validation.decode(Deploy.DeployHeaders, {
      "idempotency-key": request.headers["idempotency-key"],
      "x-core-deploy-branch": request.headers["x-core-deploy-branch"]
    }, "params")
    const deployments = yield* Deployments
    const type = mediaType(request.headers["content-type"])
    if (type === "" && hasNoBody(request)) {
      return yield* deployments.fromRepository(caller, params.platformId, headers["x-core-deploy-branch"])
    }
    if (type !== "application/gzip" && type !== "application/x-gzip") {
      return yield* uploadNotGzip
    }
    const storage = yield* DeployStorage
    return yield* deployments.upload(caller, params.platformId, {
      body: uploadBody(request, storage.limits.maxUploadBytes),
      idempotencyKey: headers["idempotency-key"],
      branch: headers["x-core-deploy-branch"]
    })
  }))

/** The command-line backend's routes, one `handle` per catalogued route (`Deploy.CliRoutes`). */
export const DeployHandlers = [
  Route.handle(routes.createRepo, ({ caller, body }) =>
    Effect.gen(function*() {
      const repos = yield* Repos
      return yield* repos.create(caller, body)
    })),
  Route.handle(routes.getRepo, ({ caller, params }) =>
    Effect.gen(function*() {
      const repos = yield* Repos
      return yield* repos.get(caller, params.platformId)
    })),
  Route.handle(routes.activateFeature, ({ caller, params, body }) =>
    Effect.gen(function*() {
      const features = yield* CliFeatures
      return yield* features.activate(caller, params.platformId, body)
    })),
  Route.handle(routes.deactivateFeature, ({ caller, params, body }) =>
    Effect.gen(function*() {
      const features = yield* CliFeatures
      return yield* features.deactivate(caller, params.platformId, body)
    })),
  deploy,
  Route.handle(routes.deployMissing, ({ caller, params, body }) =>
    Effect.gen(function*() {
      const deployments = yield* Deployments
      return yield* deployments.missing(caller, params.platformId, body.hashes)
    })),
  Route.handle(routes.buildStatus, ({ caller, params }) =>
    Effect.gen(function*() {
      const deployments = yield* Deployments
      return yield* deployments.buildStatus(caller, params.platformId)
    })),
  Route.handle(routes.listDeployments, ({ caller, params, query }) =>
    Effect.gen(function*() {
      const deployments = yield* Deployments
      return yield* deployments.list(caller, params.platformId, query)
    })),
  Route.handle(routes.getDeployment, ({ caller, params }) =>
    Effect.gen(function*() {
      const deployments = yield* Deployments
      return yield* deployments.get(caller, params.platformId, params.deploymentId)
    })),
  Route.handle(routes.rollback, ({ caller, params }) =>
    Effect.gen(function*() {
      const deployments = yield* Deployments
      return yield* deployments.rollback(caller, params.platformId, params.deploymentId)
    })),
  Route.handle(routes.setSecrets, ({ caller, params, body }) =>
    Effect.gen(function*() {
      const secrets = yield* CliSecrets
      return yield* secrets.set(caller, params.platformId, body.secrets)
    })),
  Route.handle(routes.listSecrets, ({ caller, params }) =>
    Effect.gen(function*() {
      const secrets = yield* CliSecrets
      return yield* secrets.list(caller, params.platformId)
    }))
]

/** The routes as an app: at their gateway paths under `/api/v1/cli` and with that prefix stripped. */
export const DeployRouter = Route.router(DeployHandlers, { base: CliService.base })
