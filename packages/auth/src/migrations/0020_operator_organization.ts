import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * At most one operator organization: its members are the platform's operators, so a second one
 * (by a concurrent bootstrap, or an operator create with `orgType: core-operator`) is refused.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE UNIQUE INDEX organizations_one_operator ON iam.organizations (org_type)
    WHERE org_type = 'core-operator'`
})
