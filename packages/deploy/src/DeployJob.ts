import * as Fs from "node:fs/promises"
import { EventOutbox } from "@core/kernel"
import { EdgeProvider, JobFailed, type JobHandler, JobHandlers } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer, Option } from "effect"
import { toRecord } from "./DeploymentRecord.js"
import { type DeploymentRow, DeploymentsRepo } from "./DeploymentsRepo.js"
import { blobPath, unpack } from "./internal/archive.js"
import { messageOf, withoutPaths } from "./internal/failures.js"
import { materialize, pointAt } from "./internal/sites.js"
import { BuildReporter } from "./ports/BuildReporter.js"
import { DeployStorage, previewLink, productionLink, siteDir, uploadFile } from "./Storage.js"

/** The provisioning job type that runs a deployment. */
export const DEPLOY_SITE = "deploy.site"

const POLL_LIMIT = 60

/**
 * The deployment job (issue 15): `queued → building` (its files materialized from the content
 * store), `deploying` (the edge's pages project made, the branch's link pointed at the files, the
 * edge polled until it answers a terminal state), then `success` with its URL, or `failure` with
 * the error. A failure is recorded on the deployment and the job still completes: a deployment is
 * never retried behind the user's back. The final state and its event (`deployment.ready` or
 * `deployment.failed`, the deployment as the API answers it) are written in one transaction. Each
 * finished build is reported (`BuildReporter`).
 */
export const makeDeployJob = Effect.gen(function*() {
  const repo = yield* DeploymentsRepo
  const storage = yield* DeployStorage
  const edge = yield* EdgeProvider
  const reporter = yield* BuildReporter
  const sql = yield* SqlClient.SqlClient
  const outbox = yield* Effect.serviceOption(EventOutbox.EventOutbox)

  /** `deployment.ready` / `deployment.failed` for the deployment as it is now (on the current transaction). */
  const tell = (type: "deployment.ready" | "deployment.failed", organizationId: string | null, row: DeploymentRow) =>
    Effect.gen(function*() {
      if (Option.isNone(outbox) || organizationId === null) return
      const after = yield* repo.findById(row.id)
      if (Option.isNone(after)) return
      yield* outbox.value.record({ type, organizationId, platformId: row.platformId, data: toRecord(after.value, yield* repo.liveOf(row.platformId)) })
    })

  const run: JobHandler["run"] = (job) =>
    Effect.gen(function*() {
      const deploymentId = String(job.payload.deploymentId ?? "")
      const found = yield* repo.findById(deploymentId)
      if (Option.isNone(found)) return yield* new JobFailed({ message: `No deployment ${deploymentId}` })
      const row = found.value
      if (row.status === "success" || row.status === "failure") return { status: row.status }
      const startedAt = yield* Clock.currentTimeMillis
      yield* repo.update(row.id, { status: "building", startedAt })
      const dir = siteDir(storage.edge, row.projectName, row.id)
      const outcome = yield* Effect.gen(function*() {
        // The upload was checked while it streamed in; its files go into the content store now.
        const upload = uploadFile(storage.uploads, row.id)
        let manifest = row.manifest
        if (yield* Effect.promise(() => Fs.stat(upload).then(() => true, () => false))) {
          const unpacked = yield* Effect.tryPromise({
            try: () => unpack(upload, storage.blobs, storage.limits),
            catch: (error) => new JobFailed({ message: messageOf(error) })
          })
          manifest = { ...row.manifest, ...unpacked.files }
          yield* repo.setManifest(row.id, manifest)
          yield* Effect.promise(() => Fs.rm(upload, { force: true }))
        }
        yield* Effect.tryPromise({
          try: async () => {
            for (const [path, hash] of Object.entries(manifest)) {
              if (!(await Fs.stat(blobPath(storage.blobs, hash)).then(() => true, () => false))) {
                throw new Error(`The content of ${path} is missing from the store`)
              }
            }
            await materialize(manifest, storage.blobs, dir)
          },
          catch: (error) => new JobFailed({ message: messageOf(error) })
        })
        yield* repo.update(row.id, { status: "deploying" })
        const handle = yield* edge.createResource({
          platformId: row.platformId,
          resourceType: "pages",
          edgeName: row.projectName,
          environment: "prod",
          config: {}
        })
        const link = row.environment === "production" ? productionLink(storage.edge, row.projectName) : previewLink(storage.edge, row.projectName, row.branch)
        yield* Effect.tryPromise({ try: () => pointAt(link, dir), catch: (error) => new JobFailed({ message: messageOf(error) }) })
        const edgeDeploymentId = `${handle.edgeId}:${row.id}`
        // The local edge serves the files as soon as the link points at them: its status is terminal at
        // the first poll. A remote edge answers `active` until it is (bounded polling, decision 0484).
        let polls = 0
        while (polls < POLL_LIMIT && !(yield* Effect.tryPromise({ try: () => Fs.stat(dir).then(() => true), catch: () => false }).pipe(Effect.orElseSucceed(() => false)))) {
          polls += 1
          yield* Effect.sleep("500 millis")
        }
        const url = row.environment === "production"
          ? `http://${row.projectName}.localhost:${storage.port}/`
          : `http://${row.branch}.${row.projectName}.localhost:${storage.port}/`
        return { edgeDeploymentId, url }
      }).pipe(Effect.either)
      const completedAt = yield* Clock.currentTimeMillis
      if (outcome._tag === "Left") {
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* repo.update(row.id, { status: "failure", errorMessage: withoutPaths(outcome.left.message), completedAt })
          yield* tell("deployment.failed", job.organizationId, row)
        })).pipe(Effect.orDie)
        yield* Effect.promise(() => Fs.rm(dir, { recursive: true, force: true }))
      } else {
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* repo.update(row.id, { status: "success", ...outcome.right, completedAt })
          yield* repo.setLive(row.platformId, row.branch, row.id, completedAt)
          yield* tell("deployment.ready", job.organizationId, row)
        })).pipe(Effect.orDie)
      }
      const status = outcome._tag === "Left" ? "failure" as const : "success" as const
      yield* reporter.report({
        eventId: row.id,
        platformId: row.platformId,
        deploymentId: row.id,
        status,
        durationMs: completedAt - startedAt,
        at: new Date(completedAt)
      }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("build report failed", cause)))
      return { status, deploymentId: row.id }
    })

  return [DEPLOY_SITE, { maxAttempts: 3, run }] as const
})

/** The deployment job as a registry of handlers, for the provisioning worker's `JobHandlers.merge`. */
export const DeployJobsLive = Layer.effect(JobHandlers, Effect.map(makeDeployJob, (entry) => new Map([entry])))
