import { IamMigrations } from "@core/auth"
import { Migrations } from "@core/kernel"
import { RegistryMigrations } from "@core/registry"
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { type CommandFailed, failed } from "./Failure.js"

/** Every domain's migrations, in the order they run; each domain's issue adds its own. */
export const DOMAINS: ReadonlyArray<Migrations.Domain> = [IamMigrations, RegistryMigrations]

/** Bring every domain's schema up to date, logging each migration applied. */
export const runAll: Effect.Effect<ReadonlyArray<Migrations.Applied>, CommandFailed, SqlClient.SqlClient> =
  Migrations.run(DOMAINS).pipe(
    Effect.tap((applied) =>
      Effect.forEach(applied, ({ id, name, schema }) =>
        Effect.logInfo("migration applied").pipe(Effect.annotateLogs({ schema, id, name })), { discard: true })),
    Effect.mapError((error) => failed(`Migrations failed: ${error.message}`))
  )
