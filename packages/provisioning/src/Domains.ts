import type { Provisioning } from "@core/contracts"
import { type Caller, NotFound, Policy, Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { EdgeProvider } from "./ports/EdgeProvider.js"
import { PlatformDirectory } from "./ports/PlatformDirectory.js"
import { domainNotFound, domainRemovalFailed, platformNotFound } from "./Errors.js"


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

/**
 * The custom domains `domain.add` adds (decision 0295): a platform's readers list them, its owner
 * and admins remove them (the hostname stops routing on the edge); operators and the service key
 * everything; another tenant's platform or domain answers 404.
 */
export class Domains extends Effect.Service<Domains>()("@core/provisioning/Domains", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const directory = yield* PlatformDirectory
    const edge = yield* EdgeProvider

    const allowed = (caller: Caller, platformId: string, permission: "platforms:read" | "platforms:manage", notFound: NotFound) =>
      Effect.gen(function*() {
        const owner = yield* directory.platform(platformId)
        if (Option.isNone(owner) || owner.value.organizationId === null) {
          if (!(yield* Policy.isPrivileged(caller))) return yield* notFound
          if (Option.isNone(owner)) return yield* notFound
          return
        }
        yield* Policy.requirePermission(caller, owner.value.organizationId, permission, notFound)
      })

    const list = Effect.fn("Domains.list")(function*(caller: Caller, platformId: string) {
      yield* allowed(caller, platformId, "platforms:read", platformNotFound)
      const rows = yield* sql<Record<string, unknown>>`SELECT ${sql.literal(COLUMNS)} FROM provisioning.domains
        WHERE platform_id = ${platformId} AND deleted_at IS NULL ORDER BY created_at, id`.pipe(Effect.orDie)
      return { data: rows.map(toRecord) }
    })

    const remove = Effect.fn("Domains.remove")(function*(caller: Caller, id: string) {
      const found = yield* sql<Record<string, unknown>>`SELECT ${sql.literal(COLUMNS)} FROM provisioning.domains WHERE id = ${id}`.pipe(Effect.orDie)
      const row = found[0]
      if (row === undefined) return yield* domainNotFound
      const domain = toRecord(row)
      yield* allowed(caller, domain.platformId, "platforms:manage", domainNotFound)
      if (domain.deletedAt !== null) return domain
      if (domain.edgeId !== null) {
        yield* edge.removeCustomHostname({ platformId: domain.platformId, edgeId: domain.edgeId }).pipe(
          // The edge refused or could not be reached: 502, the domain left as it was (retry the removal).
          Effect.mapError((error) => domainRemovalFailed(domain.hostname, error.message))
        )
      }
      const at = new Date(yield* Clock.currentTimeMillis)
      const updated = yield* sql<Record<string, unknown>>`UPDATE provisioning.domains SET status = 'deleted', deleted_at = ${at}, updated_at = ${at}
        WHERE id = ${id} RETURNING ${sql.literal(COLUMNS)}`.pipe(Effect.orDie)
      return toRecord(updated[0]!)
    })

    return { list, remove } as const
  })
}) {}
