import { Deploy } from "@core/contracts"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** A deployment as stored. */
export interface DeploymentRow {
  readonly id: string
  readonly platformId: string
  readonly projectName: string
  readonly branch: string
  readonly environment: "production" | "preview"
  readonly status: Deploy.DeploymentStatus
  readonly source: "upload" | "repository"
  readonly manifest: Record<string, string>
  readonly fileCount: number
  readonly uploadBytes: number
  readonly userId: string | null
  readonly edgeDeploymentId: string | null
  readonly url: string | null
  readonly errorMessage: string | null
  readonly jobId: string | null
  readonly startedAt: number | null
  readonly completedAt: number | null
  readonly createdAt: number
}

/** A repository as stored. */
export interface RepoRow {
  readonly platformId: string
  readonly repoFullName: string
  readonly defaultBranch: string
  readonly projectName: string
  readonly cloneUrl: string
  readonly createdAt: number
}

const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))

const toDeployment = (row: Record<string, unknown>): DeploymentRow => ({
  ...(row as unknown as DeploymentRow),
  manifest: (typeof row.manifest === "string" ? JSON.parse(row.manifest) : row.manifest) as Record<string, string>,
  fileCount: Number(row.fileCount),
  uploadBytes: Number(row.uploadBytes),
  startedAt: num(row.startedAt),
  completedAt: num(row.completedAt),
  createdAt: Number(row.createdAt)
})

/** The command-line backend's SQL: repositories, deployments, what is live, upload keys. */
export class DeploymentsRepo extends Effect.Service<DeploymentsRepo>()("@core/deploy/DeploymentsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(`id, platform_id AS "platformId", project_name AS "projectName", branch, environment, status,
      source, manifest, file_count AS "fileCount", upload_bytes AS "uploadBytes", user_id AS "userId",
      edge_deployment_id AS "edgeDeploymentId", url, error_message AS "errorMessage", job_id AS "jobId",
      started_at AS "startedAt", completed_at AS "completedAt", created_at AS "createdAt"`)
    const repoColumns = sql.literal(`platform_id AS "platformId", repo_full_name AS "repoFullName",
      default_branch AS "defaultBranch", project_name AS "projectName", clone_url AS "cloneUrl", created_at AS "createdAt"`)

    const findRepo = (platformId: string) =>
      sql<Record<string, unknown>>`SELECT ${repoColumns} FROM deploy.repos WHERE platform_id = ${platformId}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => ({ ...row, createdAt: Number(row.createdAt) }) as RepoRow)),
        Effect.orDie,
        Effect.withSpan("DeploymentsRepo.findRepo")
      )

    /** Insert a repository; `false` when the platform has one already. */
    const insertRepo = (repo: RepoRow) =>
      sql`INSERT INTO deploy.repos (platform_id, repo_full_name, default_branch, project_name, clone_url, created_at)
        VALUES (${repo.platformId}, ${repo.repoFullName}, ${repo.defaultBranch}, ${repo.projectName}, ${repo.cloneUrl}, ${repo.createdAt})
        ON CONFLICT (platform_id) DO NOTHING RETURNING platform_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie,
        Effect.withSpan("DeploymentsRepo.insertRepo")
      )

    const insert = (row: DeploymentRow) =>
      sql`INSERT INTO deploy.deployments (id, platform_id, project_name, branch, environment, status, source, manifest,
          file_count, upload_bytes, user_id, job_id, created_at)
        VALUES (${row.id}, ${row.platformId}, ${row.projectName}, ${row.branch}, ${row.environment}, ${row.status}, ${row.source},
          ${JSON.stringify(row.manifest)}::jsonb, ${row.fileCount}, ${row.uploadBytes}, ${row.userId}, ${row.jobId}, ${row.createdAt})`.pipe(
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("DeploymentsRepo.insert")
      )

    const find = (platformId: string, id: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM deploy.deployments WHERE id = ${id} AND platform_id = ${platformId}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toDeployment)),
        Effect.orDie,
        Effect.withSpan("DeploymentsRepo.find")
      )

    const findById = (id: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM deploy.deployments WHERE id = ${id}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toDeployment)),
        Effect.orDie
      )

    /** A page newest first, after the `(createdAt, id)` of `after`. */
    const list = (platformId: string, limit: number, after: { readonly createdAt: number; readonly id: string } | undefined) =>
      (after === undefined
        ? sql<Record<string, unknown>>`SELECT ${columns} FROM deploy.deployments WHERE platform_id = ${platformId}
            ORDER BY created_at DESC, id DESC LIMIT ${limit + 1}`
        : sql<Record<string, unknown>>`SELECT ${columns} FROM deploy.deployments WHERE platform_id = ${platformId}
            AND (created_at, id) < (${after.createdAt}, ${after.id}) ORDER BY created_at DESC, id DESC LIMIT ${limit + 1}`).pipe(
        Effect.map((rows) => rows.map(toDeployment)),
        Effect.orDie,
        Effect.withSpan("DeploymentsRepo.list")
      )

    const latest = (platformId: string) => Effect.map(list(platformId, 1, undefined), (rows) => Option.fromNullable(rows[0]))

    /** Move a deployment on; the fields given are set with its status. */
    const update = (id: string, change: Partial<Pick<DeploymentRow, "status" | "edgeDeploymentId" | "url" | "errorMessage" | "startedAt" | "completedAt">>) =>
      sql`UPDATE deploy.deployments SET
          status = COALESCE(${change.status ?? null}, status),
          edge_deployment_id = COALESCE(${change.edgeDeploymentId ?? null}, edge_deployment_id),
          url = COALESCE(${change.url ?? null}, url),
          error_message = COALESCE(${change.errorMessage ?? null}, error_message),
          started_at = COALESCE(${change.startedAt ?? null}, started_at),
          completed_at = COALESCE(${change.completedAt ?? null}, completed_at)
        WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie, Effect.withSpan("DeploymentsRepo.update"))

    /** The manifest once the job has unpacked the upload. */
    const setManifest = (id: string, manifest: Record<string, string>) =>
      sql`UPDATE deploy.deployments SET manifest = ${JSON.stringify(manifest)}::jsonb, file_count = ${Object.keys(manifest).length}
        WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie)

    const setLive = (platformId: string, branch: string, deploymentId: string, at: number) =>
      sql`INSERT INTO deploy.live (platform_id, branch, deployment_id, updated_at) VALUES (${platformId}, ${branch}, ${deploymentId}, ${at})
        ON CONFLICT (platform_id, branch) DO UPDATE SET deployment_id = EXCLUDED.deployment_id, updated_at = EXCLUDED.updated_at`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    /** The deployment ids live now, by branch. */
    const liveOf = (platformId: string) =>
      sql<{ branch: string; deploymentId: string }>`SELECT branch, deployment_id AS "deploymentId" FROM deploy.live WHERE platform_id = ${platformId}`.pipe(
        Effect.map((rows) => new Map(rows.map((row) => [row.branch, row.deploymentId]))),
        Effect.orDie
      )

    const findUploadKey = (platformId: string, key: string) =>
      sql<{ bodyHash: string; deploymentId: string }>`SELECT body_hash AS "bodyHash", deployment_id AS "deploymentId"
        FROM deploy.upload_keys WHERE platform_id = ${platformId} AND idempotency_key = ${key}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    /** Record an upload key; `false` when another request took it first. */
    const insertUploadKey = (platformId: string, key: string, bodyHash: string, deploymentId: string, at: number) =>
      sql`INSERT INTO deploy.upload_keys (platform_id, idempotency_key, body_hash, deployment_id, created_at)
        VALUES (${platformId}, ${key}, ${bodyHash}, ${deploymentId}, ${at}) ON CONFLICT DO NOTHING RETURNING deployment_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )

    return { findRepo, insertRepo, insert, find, findById, list, latest, update, setManifest, setLive, liveOf, findUploadKey, insertUploadKey } as const
  })
}) {}
