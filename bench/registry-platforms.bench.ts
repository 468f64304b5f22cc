import { Callers, Ids } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { Platforms, RegistryMigrations } from "@core/registry"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime } from "effect"
import { type Figures, median } from "./Figures.js"

/**
 * One page of platforms among 100,000 with a filter (`tier=growth`, 25 rows, a cursor half-way),
 * through `Platforms.list` as an operator calls it (policy, keyset page, `total`), against the same
 * two statements hand-written on the same database: the page and the count. PGlite, and PostgreSQL
 * when `CORE_TEST_DATABASE_URL` is set. Target: within 1.5x.
 */
const ROWS = Number(process.env.BENCH_PLATFORMS ?? 100_000)
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200)

const operator = Layer.succeed(Callers, {
  resolve: () => Effect.succeed(undefined),
  isOperator: () => Effect.succeed(true),
  permissionsOf: () => Effect.succeed(undefined)
})

/** The medians of two calls timed in turn (so a busy machine weighs on both alike), after a warm-up. */
const compare = async (runs: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<readonly [number, number]> => {
  for (let i = 0; i < Math.min(20, runs); i++) {
    await a()
    await b()
  }
  const samples: [Array<number>, Array<number>] = [[], []]
  const once = async (which: 0 | 1) => {
    const started = process.hrtime.bigint()
    await (which === 0 ? a() : b())
    samples[which].push(Number(process.hrtime.bigint() - started) / 1e6)
  }
  for (let i = 0; i < runs; i++) {
    const first = i % 2 === 0 ? 0 : 1
    await once(first)
    await once(first === 0 ? 1 : 0)
  }
  return [median(samples[0]), median(samples[1])]
}

const measure = async (driver: "pglite" | "pg") => {
  const layer = Platforms.Default.pipe(
    Layer.provideMerge(Layer.mergeAll(operator, Ids.layer)),
    Layer.provideMerge(TestDatabase.layer([RegistryMigrations], { driver }))
  )
  const runtime = ManagedRuntime.make(layer)
  try {
    await runtime.runPromise(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe(`INSERT INTO registry.platforms (id, name, slug, tier, status, created_at, updated_at)
        SELECT 'plt_' || lpad(n::text, 26, '0'), 'Platform ' || n, 'p-' || n,
          (ARRAY['free', 'starter', 'growth', 'scale'])[1 + n % 4],
          (ARRAY['active', 'active', 'active', 'suspended', 'cancelled'])[1 + n % 5],
          timestamptz '2026-01-01' + n * interval '1 second', now()
        FROM generate_series(1, ${ROWS}) AS n`)
      yield* sql.unsafe("ANALYZE registry.platforms")
    }))
    const caller = { kind: "service" } as const
    const half = await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ createdAt: Date; id: string }>`SELECT created_at AS "createdAt", id FROM registry.platforms
        WHERE tier = 'growth' ORDER BY created_at, id OFFSET ${Math.floor(ROWS / 8)} LIMIT 1`))
    const after = { createdAt: new Date(half[0].createdAt).toISOString(), id: half[0].id }
    const cursor = Buffer.from(JSON.stringify(after)).toString("base64url")
    const viaService = () =>
      runtime.runPromise(Effect.flatMap(Platforms, (p) => p.list(caller, { cursor, limit: 25, tier: "growth" })))
    const handWritten = () =>
      runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.all([
          sql`SELECT * FROM registry.platforms WHERE tier = 'growth' AND status <> 'deleted'
            AND (created_at, id) > (${new Date(after.createdAt)}, ${after.id}) ORDER BY created_at, id LIMIT 26`,
          sql`SELECT count(*) FROM registry.platforms WHERE tier = 'growth' AND status <> 'deleted'`
        ])))
    const page = await viaService()
    if (page.data.length !== 25 || page.data[0].tier !== "growth") throw new Error("the page is not what the bench expects")
    const [sqlMs, serviceMs] = await compare(ITERATIONS, handWritten, viaService)
    return { sqlMs, serviceMs, ratio: serviceMs / sqlMs }
  } finally {
    await runtime.dispose()
  }
}

export const run = async (): Promise<Figures> => {
  const rows: Array<Array<string | number>> = []
  const checks: Array<string> = []
  for (const driver of TestDatabase.drivers) {
    const { sqlMs, serviceMs, ratio } = await measure(driver)
    rows.push([driver, ROWS, sqlMs.toFixed(3), serviceMs.toFixed(3), ratio.toFixed(2)])
    checks.push(`${driver}: Platforms.list at ${ratio.toFixed(2)}x the hand-written SQL (target <= 1.5x): ${ratio <= 1.5 ? "met" : "NOT met"}`)
  }
  return {
    title: `One filtered page of platforms (tier=growth, 25 rows, cursor half-way) among ${ROWS}, median of ${ITERATIONS}`,
    columns: ["driver", "rows", "SQL ms", "Platforms.list ms", "ratio"],
    rows,
    checks
  }
}
