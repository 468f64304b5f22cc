import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The identity schema. Every table of the `iam` domain starts here; later migrations add to it.
 * Tokens, keys and codes are stored as SHA-256 hashes; passwords as scrypt hashes.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE iam.users (
    id text PRIMARY KEY,
    name text NOT NULL DEFAULT '',
    email text NOT NULL,
    email_verified boolean NOT NULL DEFAULT false,
    image text,
    password_hash text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE UNIQUE INDEX users_email_key ON iam.users (lower(email))`

  yield* sql`CREATE TABLE iam.sessions (
    id text PRIMARY KEY,
    token_hash text NOT NULL UNIQUE,
    user_id text NOT NULL REFERENCES iam.users (id) ON DELETE CASCADE,
    active_organization_id text,
    kind text NOT NULL DEFAULT 'web' CHECK (kind IN ('web', 'device')),
    refresh_family_id text,
    sliding boolean NOT NULL DEFAULT true,
    ip_address text,
    user_agent text,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE INDEX sessions_user_idx ON iam.sessions (user_id)`

  yield* sql`CREATE TABLE iam.verifications (
    id text PRIMARY KEY,
    purpose text NOT NULL CHECK (purpose IN ('magic_link', 'password_reset', 'email_verification')),
    token_hash text NOT NULL UNIQUE,
    email text NOT NULL,
    user_id text REFERENCES iam.users (id) ON DELETE CASCADE,
    callback_url text,
    payload jsonb,
    expires_at timestamptz NOT NULL,
    used_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
  )`

  yield* sql`CREATE TABLE iam.mail_outbox (
    id text PRIMARY KEY,
    to_address text NOT NULL,
    subject text NOT NULL,
    text_body text NOT NULL,
    html_body text,
    created_at timestamptz NOT NULL DEFAULT now(),
    sent_at timestamptz,
    error text
  )`

  yield* sql`CREATE TABLE iam.organizations (
    id text PRIMARY KEY,
    name text NOT NULL,
    slug text NOT NULL UNIQUE,
    org_type text NOT NULL DEFAULT 'tenant' CHECK (org_type IN ('core-operator', 'tenant')),
    logo text,
    metadata jsonb,
    platform_id text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  )`

  yield* sql`CREATE TABLE iam.members (
    id text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES iam.organizations (id) ON DELETE CASCADE,
    user_id text NOT NULL REFERENCES iam.users (id) ON DELETE CASCADE,
    role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (organization_id, user_id)
  )`
  yield* sql`CREATE INDEX members_user_idx ON iam.members (user_id)`

  yield* sql`CREATE TABLE iam.invitations (
    id text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES iam.organizations (id) ON DELETE CASCADE,
    email text NOT NULL,
    role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected', 'canceled', 'expired')),
    inviter_id text NOT NULL,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE INDEX invitations_org_idx ON iam.invitations (organization_id, created_at, id)`

  yield* sql`CREATE TABLE iam.role_mappings (
    organization_id text NOT NULL REFERENCES iam.organizations (id) ON DELETE CASCADE,
    role text NOT NULL,
    permissions jsonb NOT NULL DEFAULT '[]'::jsonb,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (organization_id, role)
  )`

  yield* sql`CREATE TABLE iam.grants (
    id text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES iam.organizations (id) ON DELETE CASCADE,
    user_id text NOT NULL,
    permission text NOT NULL,
    granted boolean NOT NULL,
    granted_by text NOT NULL,
    expires_at bigint,
    created_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE INDEX grants_org_user_idx ON iam.grants (organization_id, user_id)`

  yield* sql`CREATE TABLE iam.api_keys (
    id text PRIMARY KEY,
    key_hash text NOT NULL UNIQUE,
    start text NOT NULL,
    name text,
    organization_id text NOT NULL REFERENCES iam.organizations (id) ON DELETE CASCADE,
    platform_id text NOT NULL,
    permissions jsonb,
    created_by text NOT NULL,
    expires_at timestamptz,
    last_used_at timestamptz,
    revoked_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE INDEX api_keys_org_idx ON iam.api_keys (organization_id)`

  yield* sql`CREATE TABLE iam.platform_status (
    platform_id text PRIMARY KEY,
    status text NOT NULL CHECK (status IN ('active', 'suspended')),
    updated_by text,
    updated_at timestamptz NOT NULL DEFAULT now()
  )`

  yield* sql`CREATE TABLE iam.signing_keys (
    kid text PRIMARY KEY,
    alg text NOT NULL,
    public_jwk jsonb NOT NULL,
    private_jwk_encrypted text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    retired_at timestamptz
  )`

  yield* sql`CREATE TABLE iam.audit_log (
    id text PRIMARY KEY,
    occurred_at timestamptz NOT NULL DEFAULT now(),
    action text NOT NULL,
    outcome text NOT NULL DEFAULT 'success' CHECK (outcome IN ('success', 'failure')),
    actor_id text,
    actor_type text NOT NULL CHECK (actor_type IN ('user', 'apikey', 'service', 'anonymous', 'system')),
    organization_id text,
    target_type text,
    target_id text,
    ip text,
    user_agent text,
    request_id text,
    metadata jsonb
  )`
  yield* sql`CREATE INDEX audit_log_time_idx ON iam.audit_log (occurred_at DESC, id DESC)`
  yield* sql`CREATE INDEX audit_log_org_idx ON iam.audit_log (organization_id, occurred_at DESC)`
  yield* sql`CREATE INDEX audit_log_actor_idx ON iam.audit_log (actor_id, occurred_at DESC)`
  yield* sql`CREATE FUNCTION iam.audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'iam.audit_log is append-only' USING ERRCODE = 'insufficient_privilege';
    END
  $$`
  yield* sql`CREATE TRIGGER audit_log_no_update_delete BEFORE UPDATE OR DELETE ON iam.audit_log
    FOR EACH ROW EXECUTE FUNCTION iam.audit_log_append_only()`
  yield* sql`CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON iam.audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION iam.audit_log_append_only()`
})
