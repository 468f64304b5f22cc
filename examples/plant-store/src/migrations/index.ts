import type { Migrations } from "@core/kernel"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * The plant store's schema, migrated by the kernel's `Migrations` like any Core domain. Plants are
 * keyed by their owner (the caller's organization, else the user) and the id the client chose.
 */
export const PlantStoreMigrations: Migrations.Domain = {
  schema: "plant_store",
  migrations: {
    "0001_plants": Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`
        CREATE TABLE plant_store.plants (
          owner text NOT NULL,
          id bigint NOT NULL,
          name text NOT NULL,
          tag text,
          created_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (owner, id)
        )
      `)
  }
}
