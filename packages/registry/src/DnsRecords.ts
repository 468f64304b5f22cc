import type { Registry } from "@core/contracts"
import { type Caller, Ids, Rows } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { keysetPage } from "./internal/keysetPage.js"
import { Platforms } from "./Platforms.js"
import { canUseArea } from "./Policy.js"

const canUse = canUseArea("resources")
import { DnsApplier } from "./ports/DnsApplier.js"
import { dnsRecordDuplicate, dnsRecordNotFound } from "./Errors.js"

const toRecord = (raw: Record<string, unknown>): Registry.DnsRecord => ({
  id: raw.id as string,
  platformId: raw.platformId as string,
  type: raw.type as Registry.DnsRecordType,
  name: raw.name as string,
  content: raw.content as string,
  ttl: Number(raw.ttl),
  proxied: raw.proxied === true || raw.proxied === "t",
  priority: Rows.int8(raw.priority),
  createdAt: Rows.iso(raw.createdAt),
  updatedAt: Rows.iso(raw.updatedAt)
})

export { dnsRecordNotFound }

/**
 * A platform's DNS records (decision 0244): kept in the registry, applied through the edge
 * provider (`DnsApplier`) in the same transaction. A record's id (`dns_…`) is the
 * `targetDnsRecordId` provisioning's domain add takes. Owner and admins write, members read.
 */
export class DnsRecords extends Effect.Service<DnsRecords>()("@core/registry/DnsRecords", {
  effect: Effect.gen(function*() {
    const platforms = yield* Platforms
    // The edge provider's DNS when one is bound; else the local default, which has nothing more to do.
    const applier = Option.getOrElse(yield* Effect.serviceOption(DnsApplier), () => DnsApplier.localApplier)
    const ids = yield* Ids.Ids
    const sql = yield* SqlClient.SqlClient
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die)) as Effect.Effect<A, E, R>
    const columns = sql.literal(`id, platform_id AS "platformId", type, name, content, ttl, proxied, priority,
      created_at AS "createdAt", updated_at AS "updatedAt"`)
    const platformFor = (caller: Caller, platformId: string, write: boolean) =>
      Effect.flatMap(platforms.get(platformId), (platform) => Effect.as(canUse(caller, platform, write), platform))
    const findOne = (platformId: string, id: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM registry.dns_records WHERE platform_id = ${platformId} AND id = ${id}`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) => (rows[0] === undefined ? Effect.fail(dnsRecordNotFound) : Effect.succeed(toRecord(rows[0]))))
      )
    const clausesOf = (platformId: string, query: Registry.ListDnsRecordsQuery) => {
      const clauses = [sql`platform_id = ${platformId}`]
      if (query.type !== undefined) clauses.push(sql`type = ${query.type}`)
      if (query.name !== undefined) clauses.push(sql`lower(name) = ${query.name.toLowerCase()}`)
      return clauses
    }

    const list = Effect.fn("DnsRecords.list")(function*(caller: Caller, platformId: string, query: Registry.ListDnsRecordsQuery) {
      yield* platformFor(caller, platformId, false)
      return yield* keysetPage(sql, { table: "registry.dns_records", columns }, clausesOf(platformId, query), query, toRecord)
    })

    /** Record and apply a DNS record; the same type, name and content again: 409. */
    const create = Effect.fn("DnsRecords.create")(function*(caller: Caller, platformId: string, body: Registry.CreateDnsRecordRequest) {
      yield* platformFor(caller, platformId, true)
      const id = yield* ids.make("dns")
      const at = yield* now
      return yield* inTransaction(Effect.gen(function*() {
        const inserted = yield* sql<Record<string, unknown>>`INSERT INTO registry.dns_records
            (id, platform_id, type, name, content, ttl, proxied, priority, created_at, updated_at)
          VALUES (${id}, ${platformId}, ${body.type}, ${body.name}, ${body.content}, ${body.ttl ?? 1}, ${body.proxied ?? false},
            ${body.priority ?? null}, ${at}, ${at})
          ON CONFLICT DO NOTHING RETURNING ${columns}`.pipe(Effect.orDie)
        if (inserted[0] === undefined) return yield* dnsRecordDuplicate
        const record = toRecord(inserted[0])
        yield* applier.apply(record)
        return record
      }))
    })

    const get = Effect.fn("DnsRecords.get")(function*(caller: Caller, platformId: string, id: string) {
      yield* platformFor(caller, platformId, false)
      return yield* findOne(platformId, id)
    })

    /** Remove a DNS record from the edge and from the registry. */
    const remove = Effect.fn("DnsRecords.remove")(function*(caller: Caller, platformId: string, id: string) {
      yield* platformFor(caller, platformId, true)
      yield* inTransaction(Effect.gen(function*() {
        const deleted = yield* sql<Record<string, unknown>>`DELETE FROM registry.dns_records
          WHERE platform_id = ${platformId} AND id = ${id} RETURNING ${columns}`.pipe(Effect.orDie)
        const record = Option.fromNullable(deleted[0])
        if (Option.isNone(record)) return yield* dnsRecordNotFound
        yield* applier.remove(toRecord(record.value))
      }))
    })

    return { list, create, get, remove } as const
  })
}) {}
