// The enqueue side of the provisioning-queue benchmark alone (no workers): Jobs.enqueue, graphile-worker's addJob and raw
// inserts with and without NOTIFY from 8 callers, with CPU per job (decision 0336). Run:
//   CORE_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --conditions=source --import tsx bench/provisioning-enqueue-probe.ts
import { Database, Ids, Migrations } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { Jobs, ProvisioningMigrations } from "@core/provisioning"
import { SqlClient } from "@effect/sql"
import { Effect, Exit, Layer, ManagedRuntime, Scope } from "effect"
import pg from "pg"
import { makeWorkerUtils } from "graphile-worker"
import { cpuMs, localPorts } from "./ProcessCpu.js"

const N = Number(process.env.N ?? 2000)
const scope = Effect.runSync(Scope.make())
const url = await Effect.runPromise(Scope.extend(TestDatabase.scratchDatabase(TestDatabase.url!), scope))
const runtime = ManagedRuntime.make(Layer.merge(Database.layer({ url }), Ids.layer))
await runtime.runPromise(Migrations.run([ProvisioningMigrations]))
const probe = new pg.Pool({ connectionString: url, max: 1, application_name: "bench-probe" })
const backendsCpu = async () => {
  const rows = (await probe.query(`SELECT pid, client_port AS port FROM pg_stat_activity WHERE datname = current_database() AND application_name <> 'bench-probe' AND client_port IS NOT NULL`)).rows
  const mine = localPorts(process.pid)
  return rows.filter((r) => mine.has(r.port)).reduce((a, r) => a + cpuMs(r.pid), 0)
}
const measure = async (name: string, one: () => Promise<unknown>) => {
  for (let i = 0; i < 50; i++) await one()
  const b0 = await backendsCpu(); const c0 = process.cpuUsage(); const t0 = performance.now()
  let next = 0
  await Promise.all(Array.from({ length: 8 }, async () => { while (next++ < N) await one() }))
  const s = (performance.now() - t0) / 1000; const c = process.cpuUsage(c0); const b = await backendsCpu() - b0
  console.log(`${name}: ${Math.round(N / s)}/s, client CPU ${((c.user + c.system) / 1000 / N).toFixed(3)} ms/job, backend CPU ${(b / N).toFixed(3)} ms/job`)
}
const pool = new pg.Pool({ connectionString: url, max: 8 })
const utils = await makeWorkerUtils({ pgPool: pool })
await utils.migrate()
let k = 0
const which = (process.env.WHICH ?? "ours,graphile,rawnotify,raw").split(",")
for (const w of which) {
  if (w === "ours") await measure("Jobs.enqueue", () => runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => Jobs.enqueue(sql, { type: "test.noop", platformId: null, payload: {} }))))
  if (w === "graphile") await measure("graphile addJob", () => utils.addJob("noop", { t: Date.now() }))
  if (w === "rawnotify") await measure("raw insert+notify", () => pool.query(`WITH inserted AS (INSERT INTO provisioning.jobs (id, type, platform_id, organization_id, payload, status, max_attempts, run_at, created_at, updated_at, target) VALUES ($1, 'test.noop', NULL, NULL, '{}'::jsonb, 'QUEUED', 5, now(), now(), now(), NULL) RETURNING id) SELECT pg_notify('core_provisioning_jobs', id) FROM inserted`, [`job_x${k++}`]))
  if (w === "raw") await measure("raw insert", () => pool.query(`INSERT INTO provisioning.jobs (id, type, platform_id, organization_id, payload, status, max_attempts, run_at, created_at, updated_at, target) VALUES ($1, 'test.noop', NULL, NULL, '{}'::jsonb, 'QUEUED', 5, now(), now(), now(), NULL)`, [`job_y${k++}`]))
}
if (process.env.CLAIM) {
  const text = `UPDATE provisioning.jobs SET status = 'RUNNING', attempts = attempts + 1,
      lease_until = $2, locked_by = $1, started_at = COALESCE(started_at, $3), updated_at = $3
    WHERE id = COALESCE(
      (SELECT id FROM provisioning.jobs WHERE status = 'RUNNING' AND lease_until < $3
        ORDER BY lease_until LIMIT 1 FOR UPDATE SKIP LOCKED),
      (SELECT id FROM provisioning.jobs j
        WHERE status = 'QUEUED' AND run_at <= $3
          AND (j.target IS NULL OR NOT EXISTS (
            SELECT 1 FROM provisioning.jobs e
            WHERE e.target = j.target AND e.status IN ('QUEUED', 'RUNNING') AND (e.created_at, e.id) < (j.created_at, j.id)))
        ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
    )
    AND set_config('synchronous_commit', 'off', true) IS NOT NULL
    RETURNING id`
  const c = new pg.Client({ connectionString: url }); await c.connect()
  await c.query(`DELETE FROM provisioning.jobs`)
  const pidOf = (await c.query(`SELECT pg_backend_pid() AS p`)).rows[0].p
  for (const named of [false, true, false, true]) {
    const b0 = cpuMs(pidOf); const c0 = process.cpuUsage(); const t0 = performance.now()
    for (let i = 0; i < 2000; i++) { const now = new Date(); await c.query(named ? { name: "claim", text, values: ["w", new Date(now.getTime() + 15000), now] } : { text, values: ["w", new Date(now.getTime() + 15000), now] }) }
    const cu = process.cpuUsage(c0)
    console.log(`empty claim ${named ? "prepared" : "unnamed"}: ${(2000 / ((performance.now() - t0) / 1000)).toFixed(0)}/s backend ${((cpuMs(pidOf) - b0) / 2000).toFixed(3)} ms, client ${((cu.user + cu.system) / 1000 / 2000).toFixed(3)} ms`)
  }
  await c.end()
}
await utils.release(); await pool.end(); await probe.end(); await runtime.dispose()
await Effect.runPromise(Scope.close(scope, Exit.void))
