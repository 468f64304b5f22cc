import type { Provisioning } from "@core/contracts"
import { Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

const COLUMNS = `id, platform_id AS "platformId", hostname, target_dns_record_id AS "targetDnsRecordId", target, edge_id AS "edgeId",
  status, verification_status AS "verificationStatus", job_id AS "jobId", created_at AS "createdAt", updated_at AS "updatedAt",
  deleted_at AS "deletedAt"`

const toRecord = (raw: Record<string, unknown>): Provisioning.DomainRecord => ({
  id: raw.id as string,
  platformId: raw.platformId as string,
  hostname: raw.hostname as string,
  targetDnsRecordId: raw.targetDnsRecordId as string,
  target: Rows.textOrNull(raw.target),
  edgeId: Rows.textOrNull(raw.edgeId),
  status: raw.status as Provisioning.DomainRecord["status"],
  verificationStatus: raw.verificationStatus as Provisioning.DomainRecord["verificationStatus"],
  jobId: Rows.textOrNull(raw.jobId),
  createdAt: Rows.toDate(raw.createdAt).toISOString(),
  updatedAt: Rows.toDate(raw.updatedAt).toISOString(),
  deletedAt: Rows.toDateOrNull(raw.deletedAt)?.toISOString() ?? null
})

/** What `domain.add` records of a custom domain before routing it. */
export interface NewDomain {
  readonly id: string
  readonly platformId: string
  readonly organizationId: string | null
  readonly hostname: string
  readonly targetDnsRecordId: string
  readonly target: string
  readonly jobId: string
}

/** The SQL of `provisioning.domains`: the custom domains `domain.add` routes on the edge. */
export const makeDomainsRepo = (sql: SqlClient.SqlClient) => ({
  /** A platform's live domains, oldest first. */
  listLive: (platformId: string) =>
    sql<Record<string, unknown>>`SELECT ${sql.literal(COLUMNS)} FROM provisioning.domains
        WHERE platform_id = ${platformId} AND deleted_at IS NULL ORDER BY created_at, id`.pipe(
      Effect.map((rows) => rows.map(toRecord)),
      Effect.orDie,
      Effect.withSpan("DomainsRepo.listLive")
    ),
  find: (id: string) =>
    sql<Record<string, unknown>>`SELECT ${sql.literal(COLUMNS)} FROM provisioning.domains WHERE id = ${id}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toRecord)),
      Effect.orDie,
      Effect.withSpan("DomainsRepo.find")
    ),
  /** Soft-delete a domain; answers it as it is now. */
  markDeleted: (id: string, at: Date) =>
    sql<Record<string, unknown>>`UPDATE provisioning.domains SET status = 'deleted', deleted_at = ${at}, updated_at = ${at}
        WHERE id = ${id} RETURNING ${sql.literal(COLUMNS)}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toRecord)),
      Effect.orDie,
      Effect.withSpan("DomainsRepo.markDeleted")
    ),
  /** Whether a live domain other than `id` has the hostname. */
  hostnameTaken: (hostname: string, id: string) =>
    sql<{ id: string }>`SELECT id FROM provisioning.domains
        WHERE hostname = ${hostname} AND deleted_at IS NULL AND id <> ${id}`.pipe(
      Effect.map((rows) => rows.length > 0),
      Effect.orDie,
      Effect.withSpan("DomainsRepo.hostnameTaken")
    ),
  /** Record a domain `pending` (a retried or repeated `domain.add` of the same id makes it pending again). */
  upsertPending: (domain: NewDomain, at: Date) =>
    sql`INSERT INTO provisioning.domains (id, platform_id, organization_id, hostname, target_dns_record_id, target, status,
          verification_status, job_id, created_at, updated_at)
        VALUES (${domain.id}, ${domain.platformId}, ${domain.organizationId}, ${domain.hostname}, ${domain.targetDnsRecordId},
          ${domain.target}, 'pending', 'pending', ${domain.jobId}, ${at}, ${at})
        ON CONFLICT (id) DO UPDATE SET target_dns_record_id = EXCLUDED.target_dns_record_id, target = EXCLUDED.target,
          status = 'pending', verification_status = 'pending', job_id = EXCLUDED.job_id, deleted_at = NULL, updated_at = EXCLUDED.updated_at`.pipe(
      Effect.asVoid,
      Effect.orDie,
      Effect.withSpan("DomainsRepo.upsertPending")
    ),
  /** What the edge answered for the hostname: its id, and `active` (verified) or `pending`. */
  routed: (id: string, edgeId: string, status: "pending" | "active", at: Date) =>
    sql`UPDATE provisioning.domains SET edge_id = ${edgeId}, status = ${status},
          verification_status = ${status === "active" ? "verified" : "pending"}, updated_at = ${at}
        WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie, Effect.withSpan("DomainsRepo.routed")),
  failed: (id: string, at: Date) =>
    sql`UPDATE provisioning.domains SET status = 'failed', verification_status = 'failed', updated_at = ${at} WHERE id = ${id}`.pipe(
      Effect.asVoid,
      Effect.orDie,
      Effect.withSpan("DomainsRepo.failed")
    ),
  statusOf: (id: string) =>
    sql<{ status: string; verificationStatus: string }>`SELECT status, verification_status AS "verificationStatus"
        FROM provisioning.domains WHERE id = ${id}`.pipe(
      Effect.map((rows) => Option.fromNullable(rows[0])),
      Effect.orDie,
      Effect.withSpan("DomainsRepo.statusOf")
    ),
  /**
   * What an operator's cancel (`failed`) or force-complete (`active`) makes of the domain its
   * job left unfinished (verification untouched when forced). Inside the control's transaction.
   */
  settleJob: (jobId: string, outcome: "failed" | "active", at: Date) =>
    (outcome === "failed"
      ? sql`UPDATE provisioning.domains SET status = 'failed', verification_status = 'failed', updated_at = ${at}
          WHERE job_id = ${jobId} AND status = 'pending' AND deleted_at IS NULL`
      : sql`UPDATE provisioning.domains SET status = 'active', updated_at = ${at}
          WHERE job_id = ${jobId} AND status IN ('pending', 'failed') AND deleted_at IS NULL`)
})

/** The domains' SQL over the process's database. */
export class DomainsRepo extends Effect.Service<DomainsRepo>()("@core/provisioning/DomainsRepo", {
  effect: Effect.map(SqlClient.SqlClient, makeDomainsRepo)
}) {}
