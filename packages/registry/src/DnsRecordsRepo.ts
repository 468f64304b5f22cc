import type { Registry } from "@core/contracts"
import { Rows, type ValidationError } from "@core/kernel"
import type { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { keysetPage } from "./internal/KeysetPageRepo.js"
import type { RowPage } from "./Platforms.js"

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

/** A DNS record to insert. */
export interface NewDnsRecordRow {
  readonly id: string
  readonly platformId: string
  readonly type: string
  readonly name: string
  readonly content: string
  readonly ttl: number
  readonly proxied: boolean
  readonly priority: number | null
  readonly at: Date
}

/** The SQL of `registry.dns_records` (SqlClient only; a database failure is a defect). */
export const makeDnsRecordsRepo = (sql: SqlClient.SqlClient) => {
  const columns = sql.literal(`id, platform_id AS "platformId", type, name, content, ttl, proxied, priority,
    created_at AS "createdAt", updated_at AS "updatedAt"`)
  const first = (rows: ReadonlyArray<Record<string, unknown>>) => Option.map(Option.fromNullable(rows[0]), toRecord)
  return {
    /** One record of the platform; `none` when there is none. */
    find: (platformId: string, id: string) =>
      sql<Record<string, unknown>>`SELECT ${columns} FROM registry.dns_records WHERE platform_id = ${platformId} AND id = ${id}`.pipe(
        Effect.map(first),
        Effect.orDie,
        Effect.withSpan("DnsRecordsRepo.find")
      ),
    /** A page of the platform's records, by `type` and (case-insensitive) `name` when given. */
    list: (platformId: string, query: Registry.ListDnsRecordsQuery): Effect.Effect<RowPage<Registry.DnsRecord>, ValidationError> => {
      const clauses = [sql`platform_id = ${platformId}`]
      if (query.type !== undefined) clauses.push(sql`type = ${query.type}`)
      if (query.name !== undefined) clauses.push(sql`lower(name) = ${query.name.toLowerCase()}`)
      return keysetPage(sql, { table: "registry.dns_records", columns }, clauses, query, toRecord)
    },
    /** Insert a record; `none` when the platform already has one of that type, name and content. */
    insert: (row: NewDnsRecordRow) =>
      sql<Record<string, unknown>>`INSERT INTO registry.dns_records
          (id, platform_id, type, name, content, ttl, proxied, priority, created_at, updated_at)
        VALUES (${row.id}, ${row.platformId}, ${row.type}, ${row.name}, ${row.content}, ${row.ttl}, ${row.proxied},
          ${row.priority}, ${row.at}, ${row.at})
        ON CONFLICT DO NOTHING RETURNING ${columns}`.pipe(Effect.map(first), Effect.orDie, Effect.withSpan("DnsRecordsRepo.insert")),
    /** Delete one record of the platform; the deleted record, `none` when there was none. */
    remove: (platformId: string, id: string) =>
      sql<Record<string, unknown>>`DELETE FROM registry.dns_records
        WHERE platform_id = ${platformId} AND id = ${id} RETURNING ${columns}`.pipe(Effect.map(first), Effect.orDie, Effect.withSpan("DnsRecordsRepo.remove"))
  } as const
}
