import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Onboarding flows (DESIGN §7, decision 0236): what was asked (the platform's name, slug, tier,
 * stack template, billing address and owner) and the `onboard` job that carries it out. The flow's
 * status, steps and progress are its job's, read when the flow is read.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE registry.onboarding_flows (
    id text PRIMARY KEY,
    platform_id text NOT NULL REFERENCES registry.platforms (id) ON DELETE CASCADE,
    platform_name text NOT NULL,
    slug text NOT NULL,
    stack_template_id text,
    tier text NOT NULL,
    billing_email text,
    user_id text,
    job_id text NOT NULL,
    created_by text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`
  yield* sql`CREATE INDEX onboarding_flows_platform_idx ON registry.onboarding_flows (platform_id)`
})
