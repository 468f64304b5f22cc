import { Database, loadConfig } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse, UsageError, usageOf } from "../src/Args.js"
import * as Cli from "../src/Cli.js"
import { bootstrap as bootstrapWith } from "../src/OperatorBootstrap.js"
import * as Settings from "../src/Settings.js"
import { migratedDataDir } from "./ServerProcess.js"

const work = mkdtempSync(join(tmpdir(), "core-bootstrap-"))
const config = loadConfig({ NODE_ENV: "test", CORE_DATA_DIR: join(work, "data"), CORE_SECRET: "bootstrap-secret-0123456789abcdef" })

/** The command as `core-server bootstrap` runs it: with every domain's settings (the local payment provider). */
const bootstrap = (configuration: typeof config, email: string) =>
  bootstrapWith(configuration, email).pipe(Effect.provide(Settings.layer({ NODE_ENV: "test" })))

const sql = <A extends object>(statement: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (client) => statement(client)).pipe(
      Effect.provide(Database.layer({ dataDir: config.dataDir })),
      Effect.orDie
    )
  )

// A migrated copy (the command migrates first and finds nothing to do): this file is about the
// operator organization, not about a first migration, which costs seconds of CPU on a fresh one.
beforeAll(() => migratedDataDir(config.dataDir!), 120_000)
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe("core-server bootstrap --email", () => {
  it("parses --email and refuses anything else", () => {
    expect(parse(["bootstrap", "--email", "root@example.com"])).toEqual({ _tag: "Bootstrap", email: "root@example.com" })
    expect(parse(["bootstrap", "--email=root@example.com"])).toEqual({ _tag: "Bootstrap", email: "root@example.com" })
    for (const argv of [["bootstrap"], ["bootstrap", "--email", "nope"], ["bootstrap", "--email", "a@b.c", "extra"], ["start", "--email", "a@b.c"]]) {
      expect(parse(argv)).toBeInstanceOf(UsageError)
    }
    expect(usageOf("bootstrap")).toContain("core-server bootstrap --email <email>")
  })

  it("fails with a clear message (exit 1) when no user has the email", async () => {
    const exit = await Effect.runPromiseExit(bootstrap(config, "ghost@example.com"))
    expect(Cli.exitCode(exit)).toBe(1)
    expect(Cli.report(exit)).toBe("core-server: No user has the email ghost@example.com; sign up first")
    expect(await sql((s) => s`SELECT id FROM iam.organizations`)).toEqual([])
  }, 60_000)

  it("creates core-operator and makes the user its owner; a second run answers the same", async () => {
    await sql((s) => s`INSERT INTO iam.users (id, name, email) VALUES ('usr_01JROOT0000000000000000000', 'Root', 'root@example.com') RETURNING id`)
    const first = await Effect.runPromise(bootstrap(config, "root@example.com"))
    expect(first).toMatch(/^Created the operator organization core-operator \(org_[0-9A-Z]{26}\); root@example\.com is its owner and a platform operator\.$/)
    const second = await Effect.runPromise(bootstrap(config, "ROOT@example.com"))
    expect(second).toMatch(/^ROOT@example\.com is an owner of the operator organization core-operator \(org_[0-9A-Z]{26}\) and a platform operator\.$/)
    expect(await sql((s) =>
      s`SELECT o.slug, o.org_type AS "orgType", m.role, m.user_id AS "userId"
        FROM iam.organizations o JOIN iam.members m ON m.organization_id = o.id`)).toEqual([
      { slug: "core-operator", orgType: "core-operator", role: "owner", userId: "usr_01JROOT0000000000000000000" }
    ])
    expect(await sql((s) => s`SELECT action, actor_type AS "actorType" FROM iam.audit_log ORDER BY occurred_at, id`)).toEqual([
      { action: "org.create", actorType: "system" },
      { action: "bootstrap", actorType: "system" },
      { action: "member.add", actorType: "system" }
    ])
    // The operator organization has no platform of its own, so nothing waits for billing: bootstrap
    // runs with the same creation hook as the server all the same (decision 0447).
    expect(await sql((s) => s`SELECT id FROM registry.platforms`)).toEqual([])
    expect(await sql((s) => s`SELECT id FROM billing.subscriptions`)).toEqual([])
  }, 60_000)
})
