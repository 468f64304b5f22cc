import { IamMigrations } from "@core/auth"
import { BillingMigrations } from "@core/billing"
import { type Configuration, Migrations } from "@core/kernel"
import { ProvisioningMigrations } from "@core/provisioning"
import { RegistryMigrations } from "@core/registry"
import { StacksMigrations } from "@core/stacks"
import { DeployMigrations } from "@core/deploy"
import { EventsMigrations } from "@core/events"
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { type CommandFailed, failed } from "./Failure.js"

/**
 * A migration that first lets the event loop turn (a timer tick): on embedded PGlite a chain of
 * statements runs as one block of WebAssembly, and without a turn between them the whole run
 * would stall `/health` and the requests waiting for readiness (docs/decisions/0202).
 */
const yielding = (domain: Migrations.Domain): Migrations.Domain => ({
  schema: domain.schema,
  migrations: Object.fromEntries(
    Object.entries(domain.migrations).map(([name, migration]) => [name, Effect.zipRight(Effect.sleep(0), migration)])
  )
})

/** Every domain's migrations, in the order they run; each domain's issue adds its own. */
export const DOMAINS: ReadonlyArray<Migrations.Domain> = [IamMigrations, RegistryMigrations, StacksMigrations, ProvisioningMigrations, BillingMigrations, DeployMigrations, EventsMigrations].map(yielding)

/**
 * Bring every domain's schema up to date. The kernel logs each migration applied, once
 * (`migration applied` with `schema` and `migration`, e.g. `0001_identity`), and tells
 * `onProgress` (the terminal's progress line). A migration numbered below one already applied
 * stops the command, naming it, unless `CORE_MIGRATIONS_OUT_OF_ORDER` is set (docs/decisions/0584).
 */
export const runAll = (
  config: Pick<Configuration, "migrationsOutOfOrder">,
  onProgress?: (progress: Migrations.Progress) => void
): Effect.Effect<ReadonlyArray<Migrations.Applied>, CommandFailed, SqlClient.SqlClient> =>
  Migrations.run(DOMAINS, { outOfOrder: config.migrationsOutOfOrder, ...(onProgress === undefined ? {} : { onProgress }) }).pipe(
    Effect.mapError((error) => failed(`Migrations failed: ${error.message}`))
  )
