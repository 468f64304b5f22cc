import * as Fs from "node:fs/promises"
import { type Caller, Cursor, EventOutbox, Ids } from "@core/kernel"
import { Jobs } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { badArchive, deploymentNotFound, idempotencyMismatch, notRollbackable } from "./Errors.js"
import { DEPLOY_SITE } from "./DeployJob.js"
import { toRecord } from "./DeploymentRecord.js"
import { type DeploymentRow, DeploymentsRepo, type RepoRow } from "./DeploymentsRepo.js"
import { ArchiveRefused, hasBlob, unpack } from "./internal/archive.js"
import { pointAt } from "./internal/sites.js"
import { platformFor } from "./Policy.js"
import { Repos } from "./Repos.js"
import { DeployStorage, previewLink, productionLink, receive, siteDir, type UploadBody, uploadFile } from "./Storage.js"

/** An upload as the route hands it over: the body (`Storage.receive` reads it) and the headers that matter. */
export interface Upload {
  readonly body: UploadBody
  readonly idempotencyKey: string | undefined
  readonly branch: string | undefined
}


/**
 * Deployments (issue 15): uploads streamed to storage and checked, then deployed by a provisioning
 * job (`deploy.site`); status, lists, the latest build, rollbacks, and the incremental-upload check.
 */
export class Deployments extends Effect.Service<Deployments>()("@core/deploy/Deployments", {
  effect: Effect.gen(function*() {
    const repo = yield* DeploymentsRepo
    const repos = yield* Repos
    const storage = yield* DeployStorage
    const sql = yield* SqlClient.SqlClient
    const ids = yield* Ids.Ids

    const enqueue = (platform: { readonly id: string; readonly organizationId: string | null }, row: DeploymentRow) =>
      sql.withTransaction(Effect.gen(function*() {
        const job = yield* Jobs.enqueue(sql, {
          type: DEPLOY_SITE,
          platformId: platform.id,
          organizationId: platform.organizationId,
          payload: { deploymentId: row.id },
          target: `deploy:${platform.id}:${row.branch}`
        }).pipe(Effect.provideService(Ids.Ids, ids))
        yield* repo.insert({ ...row, jobId: job.jobId })
      })).pipe(Effect.orDie)

    const now = Clock.currentTimeMillis

    /** The upload form: streamed to storage and checked on the way, then queued; the job unpacks it. */
    const upload = Effect.fn("Deployments.upload")(function*(caller: Caller, platformId: string, input: Upload) {
      const platform = yield* platformFor(caller, platformId, true)
      const deploymentId = yield* ids.make("dep")
      const stored = yield* receive(input.body, uploadFile(storage.uploads, deploymentId), storage.limits, input.idempotencyKey !== undefined)
      const cleanup = Effect.promise(() => Fs.rm(stored.file, { force: true }))
      if (input.idempotencyKey !== undefined) {
        const known = yield* repo.findUploadKey(platformId, input.idempotencyKey)
        if (Option.isSome(known)) {
          yield* cleanup
          if (known.value.bodyHash !== stored.hash) return yield* idempotencyMismatch
          const first = yield* repo.find(platformId, known.value.deploymentId)
          if (Option.isSome(first)) return { deploymentId: first.value.id, status: first.value.status, projectName: first.value.projectName }
        }
      }
      for (const [path, hash] of Object.entries(stored.referenced)) {
        if (!(yield* Effect.promise(() => hasBlob(storage.blobs, hash)))) {
          yield* cleanup
          return yield* badArchive(`The manifest names ${JSON.stringify(path)} by a hash the server does not have: upload that file`, path)
        }
      }
      // The repository is made only for an upload that passed its checks (issue 27).
      const source = yield* repos.ensure(platform).pipe(Effect.tapErrorCause(() => cleanup))
      const row = yield* newRow(deploymentId, platform.id, source, input.branch, caller, "upload", stored.referenced, stored.size)
      yield* enqueue(platform, { ...row, fileCount: stored.paths.size + Object.keys(stored.referenced).length }).pipe(Effect.tapErrorCause(() => cleanup))
      if (input.idempotencyKey !== undefined) {
        const taken = yield* repo.insertUploadKey(platformId, input.idempotencyKey, stored.hash, row.id, row.createdAt)
        if (!taken) return yield* idempotencyMismatch
      }
      return { deploymentId: row.id, status: row.status, projectName: row.projectName }
    })

    const newRow = (
      id: string,
      platformId: string,
      source: RepoRow,
      branch: string | undefined,
      caller: Caller,
      kind: "upload" | "repository",
      manifest: Record<string, string>,
      uploadBytes: number
    ) =>
      Effect.gen(function*() {
        const chosen = branch ?? source.defaultBranch
        return {
          id,
          platformId,
          projectName: source.projectName,
          branch: chosen,
          environment: chosen === source.defaultBranch ? "production" : "preview",
          status: "queued",
          source: kind,
          manifest,
          fileCount: Object.keys(manifest).length,
          uploadBytes,
          // Only the gateway's signed identity: the service never reads a client's `x-core-user-id`.
          userId: caller.kind === "user" ? caller.userId : null,
          edgeDeploymentId: null,
          url: null,
          errorMessage: null,
          jobId: null,
          startedAt: null,
          completedAt: null,
          createdAt: yield* now
        } satisfies DeploymentRow as DeploymentRow
      })

    /** The no-body form: the repository's default branch, as `git archive` gives it. */
    const fromRepository = Effect.fn("Deployments.fromRepository")(function*(caller: Caller, platformId: string, branch: string | undefined) {
      const platform = yield* platformFor(caller, platformId, true)
      const source = yield* repos.ensure(platform)
      const archive = yield* repos.archive(platform.id, branch ?? source.defaultBranch, storage.uploads)
      const unpacked = yield* Effect.tryPromise({ try: () => unpack(archive, storage.blobs, storage.limits), catch: (error) => error }).pipe(
        Effect.ensuring(Effect.promise(() => Fs.rm(archive, { force: true }))),
        Effect.catchAll((error) => error instanceof ArchiveRefused ? Effect.fail(badArchive(error.message, error.entry)) : Effect.die(error))
      )
      const row = yield* newRow(yield* ids.make("dep"), platform.id, source, branch, caller, "repository", unpacked.files, 0)
      yield* enqueue(platform, row)
      return { deploymentId: row.id, status: row.status, projectName: row.projectName, url: urlOf(storage.port, source.projectName, row.branch, source.defaultBranch) }
    })

    /** Which of these hashes the content store lacks. */
    const missing = Effect.fn("Deployments.missing")(function*(caller: Caller, platformId: string, hashes: ReadonlyArray<string>) {
      yield* platformFor(caller, platformId, true)
      const unique = [...new Set(hashes)]
      const present = yield* Effect.forEach(unique, (hash) => Effect.promise(() => hasBlob(storage.blobs, hash)), { concurrency: 16 })
      return { missing: unique.filter((_, index) => !present[index]) }
    })

    const get = Effect.fn("Deployments.get")(function*(caller: Caller, platformId: string, deploymentId: string) {
      yield* platformFor(caller, platformId, false)
      const row = yield* repo.find(platformId, deploymentId)
      if (Option.isNone(row)) return yield* deploymentNotFound
      return toRecord(row.value, yield* repo.liveOf(platformId))
    })

    const list = Effect.fn("Deployments.list")(function*(caller: Caller, platformId: string, query: { readonly cursor?: string | undefined; readonly limit: number }) {
      yield* platformFor(caller, platformId, false)
      const after = query.cursor === undefined ? undefined : yield* decodeCursor(query.cursor)
      const rows = yield* repo.list(platformId, query.limit, after)
      const live = yield* repo.liveOf(platformId)
      const page = rows.slice(0, query.limit)
      const last = page[page.length - 1]
      const hasMore = rows.length > query.limit
      return {
        data: page.map((row) => toRecord(row, live)),
        hasMore,
        nextCursor: hasMore && last !== undefined ? Cursor.encode({ createdAt: last.createdAt, id: last.id }) : null
      }
    })

    const buildStatus = Effect.fn("Deployments.buildStatus")(function*(caller: Caller, platformId: string) {
      const platform = yield* platformFor(caller, platformId, false)
      const source = yield* repos.find(platform.id)
      const latest = yield* repo.latest(platformId)
      return {
        platformId,
        edgePagesProjectName: Option.match(source, { onNone: () => platform.slug, onSome: (found) => found.projectName }),
        latestDeployment: Option.match(latest, {
          onNone: () => null,
          onSome: (row) => ({ id: row.id, status: row.status, url: row.url ?? "", createdOn: new Date(row.createdAt).toISOString() })
        })
      }
    })

    /**
     * Make an earlier successful deployment live again at once: the branch's link is pointed back at
     * its files; what is live and `deployment.rolled_back` (the deployment, live again) in one transaction.
     */
    const rollback = Effect.fn("Deployments.rollback")(function*(caller: Caller, platformId: string, deploymentId: string) {
      const platform = yield* platformFor(caller, platformId, true)
      const found = yield* repo.find(platformId, deploymentId)
      if (Option.isNone(found)) return yield* deploymentNotFound
      const row = found.value
      if (row.status !== "success") return yield* notRollbackable(row.status)
      const dir = siteDir(storage.edge, row.projectName, row.id)
      const link = row.environment === "production" ? productionLink(storage.edge, row.projectName) : previewLink(storage.edge, row.projectName, row.branch)
      yield* Effect.promise(() => pointAt(link, dir))
      const at = yield* now
      return yield* sql.withTransaction(Effect.gen(function*() {
        yield* repo.setLive(platformId, row.branch, row.id, at)
        const record = toRecord(row, yield* repo.liveOf(platformId))
        if (platform.organizationId !== null) {
          yield* EventOutbox.record({ type: "deployment.rolled_back", organizationId: platform.organizationId, platformId, data: record })
        }
        return record
      })).pipe(Effect.orDie)
    })

    return { upload, fromRepository, missing, get, list, buildStatus, rollback } as const
  })
}) {}

const decodeCursor = (cursor: string) =>
  Effect.map(Cursor.decode(Cursor.CreatedAtId, cursor), (key) => ({ createdAt: key.createdAt.getTime(), id: key.id }))

/** The URL a branch of a project is served at on the local edge: a preview one label deeper. */
export const urlOf = (port: number, project: string, branch: string, defaultBranch: string): string =>
  branch === defaultBranch ? `http://${project}.localhost:${port}/` : `http://${branch}.${project}.localhost:${port}/`
