import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * An entity's version, bumped by every change (its rename or status change, and its soft delete,
 * alone or in a cascade): the record's `ETag` for `If-Match` (decision 0261). The descendants query
 * needs no new index: its anchor is the primary key and each level `entities_parent_idx` (decision 0260).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE registry.entities ADD COLUMN version integer NOT NULL DEFAULT 1`
})
