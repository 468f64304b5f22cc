import { randomBytes, randomUUID } from "node:crypto"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { CoreConfig, Crypto } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer, Option, Redacted } from "effect"
import { JobFailed } from "../JobHandlers.js"
import { EdgeProvider, type EdgeResourceSpec, type EdgeResourceType } from "../ports/EdgeProvider.js"
import * as LocalEdge from "./LocalEdge.js"
import { makeLocalEdgeRepo } from "./LocalEdgeRepo.js"

/** Where the local edge keeps its files and the port its pages are served on. */
export interface LocalEdgeOptions {
  /** @default `<CORE_DATA_DIR>/edge`, or a per-process temporary directory without one (`LocalEdge.rootOf`) */
  readonly root?: string
  /** The port of the URLs it answers (`http://<project>.localhost:<port>/`). @default `PORT` of `CoreConfig`, else 8787 */
  readonly port?: number
}

const failed = (message: string) => (cause: unknown) =>
  new JobFailed({ message: `${message}: ${cause instanceof Error ? cause.message : String(cause)}` })

const placeholderPage = (project: string) =>
  `<!doctype html>\n<html><head><meta charset="utf-8"><title>${project}</title></head>` +
  `<body><h1>${project}</h1><p>Served by Core's local edge.</p></body></html>\n`

/**
 * Write `config.files` (path → text) into a pages directory, none outside it; an empty directory
 * gets a placeholder `index.html`.
 */
const writePages = (dir: string, project: string, files: unknown) =>
  Effect.tryPromise({
    try: async () => {
      await Fs.mkdir(dir, { recursive: true })
      if (typeof files === "object" && files !== null) {
        for (const [name, content] of Object.entries(files)) {
          if (typeof content !== "string") continue
          const target = Path.resolve(dir, name.replace(/^\/+/, ""))
          if (!target.startsWith(dir + Path.sep)) throw new Error(`the file ${name} is outside the project`)
          await Fs.mkdir(Path.dirname(target), { recursive: true })
          await Fs.writeFile(target, content)
        }
      }
      const present = await Fs.readdir(dir)
      if (present.length === 0) await Fs.writeFile(Path.join(dir, "index.html"), placeholderPage(project))
    },
    catch: failed(`Could not write the pages of ${project}`)
  })

/** What a feature keeps at the local edge: a database, an object store, a key-value namespace (decision 0313). */
const FEATURE_DATA: ReadonlyArray<EdgeResourceType> = ["sql_db", "object_store", "kv"]

/** A worker secret's name (the registry's rule): what makes it a safe file name too. */
const SECRET_NAME = /^[A-Z_][A-Z0-9_]{0,127}$/

/** The local edge provider as built from `options`. */
const make = (options: LocalEdgeOptions) =>
  Effect.gen(function*() {
    const repo = makeLocalEdgeRepo(yield* SqlClient.SqlClient)
    const config = yield* Effect.serviceOption(CoreConfig)
    const root = Path.resolve(options.root ?? LocalEdge.rootOf(Option.getOrUndefined(config)))
    const port = options.port ?? Option.match(config, { onNone: () => 8787, onSome: (c) => c.port })
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const dbFailure = failed("The local edge's database failed")
    /** Worker secrets are encrypted at rest under a key from `CORE_SECRET` (a per-process one without it). */
    const secretsKey = Option.match(config, {
      onNone: () => new Uint8Array(randomBytes(32)),
      onSome: (c) => Crypto.deriveKey(c.secret, LocalEdge.WORKER_SECRETS_KEY_PURPOSE)
    })

    /** Make the resource's data: a schema, a directory, a table (each idempotent). */
    const materialize = (spec: EdgeResourceSpec): Effect.Effect<void, JobFailed> => {
      switch (spec.resourceType) {
        case "sql_db":
          return repo.createDatabase(spec.edgeName).pipe(Effect.mapError(dbFailure))
        case "object_store":
          return Effect.tryPromise({
            try: () => Fs.mkdir(LocalEdge.objectsDir(root, spec.edgeName), { recursive: true }),
            catch: failed(`Could not make the object store ${spec.edgeName}`)
          }).pipe(Effect.asVoid)
        case "kv":
          return repo.createKv(spec.edgeName).pipe(Effect.mapError(dbFailure))
        case "queue":
          return repo.createQueue(spec.edgeName).pipe(Effect.mapError(dbFailure))
        case "pages":
          return writePages(LocalEdge.pagesDir(root, spec.edgeName), spec.edgeName, spec.config.files)
        case "worker":
          return Effect.void
      }
    }

    /** Drop the resource's data (absent: nothing). */
    const dropData = (resourceType: EdgeResourceType, edgeName: string): Effect.Effect<void, JobFailed> => {
      const removeDir = (dir: string) =>
        Effect.tryPromise({ try: () => Fs.rm(dir, { recursive: true, force: true }), catch: failed(`Could not remove ${edgeName}`) })
      switch (resourceType) {
        case "sql_db":
          return repo.dropDatabase(edgeName).pipe(Effect.mapError(dbFailure))
        case "object_store":
          return removeDir(LocalEdge.objectsDir(root, edgeName))
        case "pages":
          return removeDir(LocalEdge.pagesDir(root, edgeName))
        case "kv":
        case "queue":
          return repo.dropTable(resourceType, edgeName).pipe(Effect.mapError(dbFailure))
        case "worker":
          return Effect.void
      }
    }

    const handleOf = (spec: Pick<EdgeResourceSpec, "resourceType" | "edgeName">) => ({
      edgeId: `local:${spec.resourceType}:${spec.edgeName}`,
      edgeUrl: spec.resourceType === "pages" ? LocalEdge.pagesUrl(LocalEdge.safeSegment(spec.edgeName), port) : null
    })

    const ownerOf = (resourceType: string, edgeName: string) => repo.ownerOf(resourceType, edgeName).pipe(Effect.mapError(dbFailure))

    const createResource = (spec: EdgeResourceSpec) =>
      Effect.gen(function*() {
        const owner = yield* ownerOf(spec.resourceType, spec.edgeName)
        if (Option.isSome(owner) && owner.value !== spec.platformId) {
          return yield* new JobFailed({ message: `The ${spec.resourceType} ${spec.edgeName} belongs to another platform` })
        }
        if (spec.resourceType === "worker" && spec.config.script !== undefined && typeof spec.config.script !== "string") {
          return yield* new JobFailed({ message: "A worker's config.script must be the bundle's text" })
        }
        yield* materialize(spec)
        const handle = handleOf(spec)
        const at = yield* now
        const script = typeof spec.config.script === "string" ? spec.config.script : null
        const { script: _, files: __, ...config } = spec.config
        yield* repo.upsertResource({ spec, ...handle, config, script }, at).pipe(Effect.mapError(dbFailure))
        return handle
      }).pipe(Effect.withSpan("EdgeProviderLocal.createResource", { attributes: { resourceType: spec.resourceType, edgeName: spec.edgeName } }))

    const deleteResource = (
      spec: Pick<EdgeResourceSpec, "platformId" | "resourceType" | "edgeName">,
      options: { readonly deleteData: boolean }
    ) =>
      Effect.gen(function*() {
        const owner = yield* ownerOf(spec.resourceType, spec.edgeName)
        if (Option.isSome(owner) && owner.value !== spec.platformId) {
          return yield* new JobFailed({ message: `The ${spec.resourceType} ${spec.edgeName} belongs to another platform` })
        }
        // Data first, then the listing: a retry after a crash between them still finds the row.
        if (options.deleteData) yield* dropData(spec.resourceType, spec.edgeName)
        yield* repo.deleteResource(spec).pipe(Effect.mapError(dbFailure))
      }).pipe(Effect.withSpan("EdgeProviderLocal.deleteResource", { attributes: { resourceType: spec.resourceType, edgeName: spec.edgeName } }))

    const listResources = (platformId: string) => repo.listResources(platformId).pipe(Effect.mapError(dbFailure))

    /** Recorded `pending`, then verified at once: a local hostname needs no DNS proof (decision 0294). */
    const addCustomHostname = (input: { readonly platformId: string; readonly hostname: string; readonly target: string }) =>
      Effect.gen(function*() {
        const hostname = input.hostname.toLowerCase()
        const at = yield* now
        const existing = yield* repo.hostname(hostname).pipe(Effect.mapError(dbFailure))
        if (Option.isSome(existing) && existing.value.platformId !== input.platformId) {
          return yield* new JobFailed({ message: `The hostname ${hostname} is routed for another platform` })
        }
        const edgeId = Option.isSome(existing) ? existing.value.id : `local-hostname:${hostname}`
        yield* repo.routeHostname({ id: edgeId, platformId: input.platformId, hostname, target: input.target }, at).pipe(Effect.mapError(dbFailure))
        return { edgeId, status: "active" as const }
      }).pipe(Effect.withSpan("EdgeProviderLocal.addCustomHostname"))

    const removeCustomHostname = (input: { readonly platformId: string; readonly edgeId: string }) =>
      repo.removeHostname(input).pipe(
        Effect.mapError(dbFailure),
        Effect.withSpan("EdgeProviderLocal.removeCustomHostname")
      )

    /**
     * `<root>/secrets/<worker>/<NAME>`: one file per secret (so concurrent sets never lose one),
     * AES-256-GCM bound to the worker and the name, mode 0600, replaced atomically (decision 0490).
     */
    const setWorkerSecret = (input: { readonly platformId: string; readonly edgeName: string; readonly name: string; readonly value: Redacted.Redacted<string> }) =>
      Effect.gen(function*() {
        if (!SECRET_NAME.test(input.name)) return yield* new JobFailed({ message: `A worker secret's name must match ^[A-Z_][A-Z0-9_]*$` })
        const owner = yield* ownerOf("worker", input.edgeName)
        if (Option.isSome(owner) && owner.value !== input.platformId) {
          return yield* new JobFailed({ message: `The worker ${input.edgeName} belongs to another platform` })
        }
        const dir = LocalEdge.workerSecretsDir(root, input.edgeName)
        const sealed = Crypto.encrypt(secretsKey, Redacted.value(input.value), `${input.edgeName}/${input.name}`)
        yield* Effect.tryPromise({
          try: async () => {
            await Fs.mkdir(dir, { recursive: true, mode: 0o700 })
            const staging = Path.join(dir, `.${input.name}.${randomUUID()}`)
            await Fs.writeFile(staging, sealed, { mode: 0o600 })
            await Fs.rename(staging, Path.join(dir, input.name))
          },
          catch: failed(`Could not store the secret ${input.name} of ${input.edgeName}`)
        })
      }).pipe(Effect.withSpan("EdgeProviderLocal.setWorkerSecret", { attributes: { edgeName: input.edgeName, name: input.name } }))

    return EdgeProvider.of({
      name: "local",
      activateFeature: (feature) =>
        Effect.gen(function*() {
          // The feature's data (decision 0313): made once, kept across activations unless deleted.
          yield* Effect.forEach(FEATURE_DATA, (resourceType) =>
            materialize({ platformId: feature.platformId, resourceType, edgeName: LocalEdge.featureDataName(feature), environment: "prod", config: {} }), {
            discard: true
          })
          const at = yield* now
          yield* repo.deployFeature(feature, at).pipe(Effect.orDie)
        }).pipe(Effect.withSpan("EdgeProviderLocal.activateFeature")),
      deactivateFeature: (feature, options) =>
        Effect.gen(function*() {
          if (options?.deleteData === true) {
            yield* Effect.forEach(FEATURE_DATA, (resourceType) => dropData(resourceType, LocalEdge.featureDataName(feature)), { discard: true })
          }
          yield* repo.removeFeature(feature).pipe(Effect.orDie)
        }).pipe(Effect.withSpan("EdgeProviderLocal.deactivateFeature", { attributes: { deleteData: options?.deleteData === true } })),
      setPlatformStatus: (platformId, status) =>
        Effect.flatMap(now, (at) => repo.setPlatformStatus(platformId, status, at)).pipe(
          Effect.orDie,
          Effect.withSpan("EdgeProviderLocal.setPlatformStatus")
        ),
      createResource,
      deleteResource,
      listResources,
      setWorkerSecret,
      addCustomHostname,
      removeCustomHostname
    })
  })

/**
 * The local edge provider (DESIGN §7): what it makes is real and local (decision 0292). A `sql_db`
 * is a PostgreSQL schema `edge_<name>`; an `object_store` a directory `<root>/objects/<name>`; a
 * `kv` namespace or a `queue` a table of its own in `provisioning_edge`; a `worker` its bundle
 * (`config.script`) kept in `provisioning.edge_resources`, which lists them all; `pages` a
 * directory `<root>/pages/<project>` that the server serves at `http://<project>.localhost:<port>/`
 * (451 while the platform is suspended: `provisioning.platform_status`). A feature is recorded as
 * deployed in `provisioning.local_features`, its data (a schema, a directory, a kv table named
 * `LocalEdge.featureDataName`) made with it and dropped by a deactivation with `deleteData`;
 * custom hostnames in `provisioning.edge_hostnames`; a worker's secrets encrypted in
 * `<root>/secrets/<worker>/<NAME>` (`LocalEdge.readWorkerSecrets` opens them for a runtime).
 */
export const EdgeProviderLocal: Layer.Layer<EdgeProvider, never, SqlClient.SqlClient> & {
  readonly layer: (options: LocalEdgeOptions) => Layer.Layer<EdgeProvider, never, SqlClient.SqlClient>
} = Object.assign(Layer.effect(EdgeProvider, make({})), {
  layer: (options: LocalEdgeOptions) => Layer.effect(EdgeProvider, make(options))
})
