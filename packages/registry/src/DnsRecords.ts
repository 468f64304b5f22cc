import type { Registry } from "@core/contracts"
import { type Caller, Ids } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { makeDnsRecordsRepo } from "./DnsRecordsRepo.js"
import { Platforms } from "./Platforms.js"
import { canUseArea } from "./Policy.js"

const canUse = canUseArea("resources")
import { DnsApplier } from "./ports/DnsApplier.js"
import { dnsRecordDuplicate, dnsRecordNotFound } from "./Errors.js"

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
    const repo = makeDnsRecordsRepo(sql)
    const platformFor = (caller: Caller, platformId: string, write: boolean) =>
      Effect.flatMap(platforms.get(platformId), (platform) => Effect.as(canUse(caller, platform, write), platform))
    const findOne = (platformId: string, id: string) =>
      Effect.flatMap(repo.find(platformId, id), Option.match({ onNone: () => Effect.fail(dnsRecordNotFound), onSome: Effect.succeed }))

    const list = Effect.fn("DnsRecords.list")(function*(caller: Caller, platformId: string, query: Registry.ListDnsRecordsQuery) {
      yield* platformFor(caller, platformId, false)
      return yield* repo.list(platformId, query)
    })

    /** Record and apply a DNS record; the same type, name and content again: 409. */
    const create = Effect.fn("DnsRecords.create")(function*(caller: Caller, platformId: string, body: Registry.CreateDnsRecordRequest) {
      yield* platformFor(caller, platformId, true)
      const id = yield* ids.make("dns")
      const at = yield* now
      return yield* inTransaction(Effect.gen(function*() {
        const inserted = yield* repo.insert({
          id, platformId, type: body.type, name: body.name, content: body.content, ttl: body.ttl ?? 1, proxied: body.proxied ?? false,
          priority: body.priority ?? null, at
        })
        if (Option.isNone(inserted)) return yield* dnsRecordDuplicate
        const record = inserted.value
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
        const record = yield* repo.remove(platformId, id)
        if (Option.isNone(record)) return yield* dnsRecordNotFound
        yield* applier.remove(record.value)
      }))
    })

    return { list, create, get, remove } as const
  })
}) {}
