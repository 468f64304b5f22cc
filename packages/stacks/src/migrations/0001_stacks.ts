import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The stack catalogue: templates and their versions. `latest_version` is not stored: it is derived
 * from the published versions by semantic-version order when read (decision 0221), so no write
 * can leave it stale. Times are epoch milliseconds (numbers in the records, docs/stacks.md).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE stacks.templates (
    id text PRIMARY KEY,
    name text NOT NULL,
    display_name text NOT NULL,
    description text NOT NULL,
    icon text,
    domain text,
    status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deprecated')),
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
  )`
  yield* sql`CREATE UNIQUE INDEX templates_name_key ON stacks.templates (name)`

  yield* sql`CREATE TABLE stacks.versions (
    id text PRIMARY KEY,
    template_id text NOT NULL REFERENCES stacks.templates (id) ON DELETE CASCADE,
    version text NOT NULL,
    stack_definition text NOT NULL,
    core_sdk_version text NOT NULL,
    status text NOT NULL DEFAULT 'published' CHECK (status IN ('published', 'deprecated')),
    published_at bigint NOT NULL,
    created_at bigint NOT NULL
  )`
  yield* sql`CREATE UNIQUE INDEX versions_template_version_key ON stacks.versions (template_id, version)`
})
