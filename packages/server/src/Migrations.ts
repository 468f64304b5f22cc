import { IamMigrations } from "@core/auth"
import { Migrations } from "@core/kernel"
import { RegistryMigrations } from "@core/registry"
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { type CommandFailed, failed } from "./Failure.js"

/** Every domain's migrations, in the order they run; each domain's issue adds its own. */
export const DOMAINS: ReadonlyArray<Migrations.Domain> = [IamMigrations, RegistryMigrations]

/**
 * Bring every domain's schema up to date. The kernel logs each migration applied, once
 * (`migration applied` with `schema` and `migration`, e.g. `0001_identity`).
 */
export const runAll: Effect.Effect<ReadonlyArray<Migrations.Applied>, CommandFailed, SqlClient.SqlClient> =
  Migrations.run(DOMAINS).pipe(
    Effect.mapError((error) => failed(`Migrations failed: ${error.message}`))
  )
