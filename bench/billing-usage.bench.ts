import { BillingMigrations, calendarMonth, UsageAccounts, UsageIngest } from "@core/billing"
import { Database, Migrations } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { Effect, Exit, Layer, Logger, LogLevel, ManagedRuntime, Option, Scope } from "effect"
import pg from "pg"
import { from as copyFrom } from "pg-copy-streams"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import type { Figures } from "./Figures.js"

/**
 * Usage events ingested per second into PostgreSQL (`CORE_TEST_DATABASE_URL`, a scratch database)
 * through billing's ingestion API (`UsageIngest.ingest`: the events inserted by id with
 * `ON CONFLICT DO NOTHING`, the daily rollups upserted, the alerts checked), in batches of 1,000
 * from 4 concurrent callers, beside a plain `COPY … FROM STDIN` of the same rows into the same
 * table (no rollups, no idempotency: the physical limit), in the same run. `BENCH_USAGE_EVENTS`
 * events (default 200,000) over 20 platforms, 100 tenants, 3 meters. Target: ≥ 10,000/s.
 */
const EVENTS = Number(process.env.BENCH_USAGE_EVENTS ?? 200_000)
const BATCH = 1000
const CALLERS = 4
const TARGET = 10_000

interface Row {
  readonly id: string
  readonly platformId: string
  readonly tenantId: string
  readonly meter: "requests" | "resource_hours" | "builds"
  readonly quantity: number
  readonly occurredAt: string
}

const rowsOf = (count: number, prefix: string): Array<Row> => {
  const meters = ["requests", "resource_hours", "builds"] as const
  const now = Date.now()
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}_${i}`,
    platformId: `plt_bench_${i % 20}`,
    tenantId: `ent_bench_${i % 100}`,
    meter: meters[i % 3]!,
    quantity: 1 + (i % 7),
    occurredAt: new Date(now - (i % 48) * 3_600_000).toISOString()
  }))
}

/** Every platform: a calendar month and large allowances (the alert check runs, no alert is raised). */
const BenchAccounts = Layer.succeed(UsageAccounts, {
  owner: () => Effect.succeed(Option.some("org_bench")),
  platformOf: () => Effect.succeed(Option.none()),
  period: (_platformId, at) => Effect.succeed({ ...calendarMonth(at), allowances: { requests: 1e12, resource_hours: 1e12, builds: 1e12 } })
})

const viaApi = async (url: string, rows: ReadonlyArray<Row>): Promise<number> => {
  const runtime = ManagedRuntime.make(UsageIngest.Default.pipe(Layer.provide(BenchAccounts), Layer.provide(Database.layer({ url }))))
  try {
    const batches: Array<ReadonlyArray<Row>> = []
    for (let at = 0; at < rows.length; at += BATCH) batches.push(rows.slice(at, at + BATCH))
    await runtime.runPromise(Effect.flatMap(UsageIngest, (ingest) => ingest.ingest(rowsOf(10, "warm"))))
    let next = 0
    let accepted = 0
    const t0 = performance.now()
    await Promise.all(Array.from({ length: CALLERS }, async () => {
      while (next < batches.length) {
        const batch = batches[next++]!
        const result = await runtime.runPromise(Effect.flatMap(UsageIngest, (ingest) => ingest.ingest(batch)))
        accepted += result.accepted
      }
    }))
    const seconds = (performance.now() - t0) / 1_000
    if (accepted !== rows.length) throw new Error(`ingested ${accepted} of ${rows.length}`)
    return rows.length / seconds
  } finally {
    await runtime.dispose()
  }
}

const viaCopy = async (url: string, rows: ReadonlyArray<Row>): Promise<number> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const t0 = performance.now()
    const text = function*() {
      for (const row of rows) {
        yield `${row.id}\t${row.platformId}\t${row.tenantId}\t\\N\t${row.meter}\t${row.quantity}\t${row.occurredAt}\n`
      }
    }
    await pipeline(
      Readable.from(text()),
      client.query(copyFrom("COPY billing.usage_events (id, platform_id, tenant_id, stack_id, meter, quantity, occurred_at) FROM STDIN"))
    )
    return rows.length / ((performance.now() - t0) / 1_000)
  } finally {
    await client.end()
  }
}

export const run = async (): Promise<Figures> => {
  const admin = TestDatabase.url
  if (admin === undefined) {
    return { title: "Usage ingestion vs COPY", columns: ["skipped"], rows: [["set CORE_TEST_DATABASE_URL"]], checks: [] }
  }
  const scope = Effect.runSync(Scope.make())
  try {
    const url = await Effect.runPromise(Scope.extend(TestDatabase.scratchDatabase(admin), scope))
    await Effect.runPromise(Migrations.run([BillingMigrations]).pipe(Effect.provide(Database.layer({ url })), Logger.withMinimumLogLevel(LogLevel.Warning)))
    const api = await viaApi(url, rowsOf(EVENTS, "api"))
    const copy = await viaCopy(url, rowsOf(EVENTS, "copy"))
    const ratio = api / copy
    return {
      title: `${EVENTS} usage events into PostgreSQL (20 platforms, 100 tenants, 3 meters), local PostgreSQL`,
      columns: ["path", "events/s"],
      rows: [
        [`ingestion API (UsageIngest, batches of ${BATCH}, ${CALLERS} callers, idempotent + daily rollups + alerts)`, Math.round(api)],
        ["plain COPY … FROM STDIN of the same rows into the same table", Math.round(copy)]
      ],
      checks: [
        `ingestion API at ${Math.round(api)} events/s (target >= ${TARGET}): ${api >= TARGET ? "met" : "NOT met"}`,
        `ingestion API at ${ratio.toFixed(2)}x COPY's rate`
      ]
    }
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
