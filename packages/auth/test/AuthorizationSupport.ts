import { DEFAULT_ROLE_PERMISSIONS, DEFAULT_ROLES } from "@core/contracts"
import { type Callers, CoreConfig, Crypto, ErrorResponse, Ids } from "@core/kernel"
import { type HttpHarness, makeHttpHarness, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { expect } from "vitest"
import { CurrentSession } from "../src/accounts/CurrentSession.js"
import type { Caller, UserCaller } from "@core/kernel"
import { AuthorizationLive, AuthorizationRouter } from "../src/authorization/Http.js"
import { CallersLive } from "../src/authorization/CallersLive.js"
import { IamMigrations } from "../src/migrations/index.js"

/** The static service key of the test configuration. */
export const STATIC_KEY = "test-static-key-0123456789abcdef"

/** How a test server is configured: `devBypass` leaves the static key unset. */
export interface TestOptions {
  readonly devBypass?: boolean
}

/** The configuration of the tests. */
export const configLayer = (options: TestOptions = {}) =>
  CoreConfig.layer({
    NODE_ENV: "test",
    CORE_SECRET: "test-secret-test-secret-test-secret-0123",
    ...(options.devBypass === true ? {} : { CORE_STATIC_API_KEY: STATIC_KEY })
  })

/** What the test layers provide. */
export type Services = Layer.Layer.Success<typeof AuthorizationLive> | SqlClient.SqlClient | CoreConfig | Ids.Ids

/** Everything a service test needs: database, configuration, ids and the authorization layer. */
export const serviceLayer = (options: TestOptions = {}): Layer.Layer<Services> =>
  AuthorizationLive.pipe(
    Layer.provideMerge(Layer.mergeAll(TestDatabase.layer([IamMigrations]), configLayer(options), Ids.layer)),
    Layer.orDie
  )

/** The service layer plus identity's `Callers` (sessions by token hash, API keys, the static key), for HTTP tests. */
export const httpLayer = (options: TestOptions = {}): Layer.Layer<Services | Callers> =>
  CallersLive.pipe(
    Layer.provide(CurrentSession.Default),
    Layer.provideMerge(serviceLayer(options))
  )

/** The authorization routes with the kernel's error envelope (unknown paths too), as one app. */
export const app = ErrorResponse.withErrorEnvelope(AuthorizationRouter)

/** A running harness: the kernel's `HttpHarness` over the authorization routes and services. */
export type Harness = HttpHarness<Services | Callers>

/**
 * The authorization routes on the kernel's harness, over one database: `fetch` sends a real
 * `Request` (`token`, `apiKey`, `json`), `run` runs an effect (seeding, reading rows) against the
 * same services, `listen` serves them at 127.0.0.1.
 */
export const makeHarness = (options: TestOptions = {}): Promise<Harness> =>
  makeHttpHarness(app, httpLayer(options), { baseUrl: "http://iam.test" })

/** The error envelope a test expects (the request id is whatever the server chose). */
export const envelope = (code: string, message: string, details: unknown = null) => ({
  error: { code, message, requestId: expect.any(String), details }
})

let counter = 0
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}`

/** A user with a live session; `token` is the bearer. */
export const seedUser = (name = "user") =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const id = yield* Ids.make("usr")
    const token = Crypto.randomToken(32)
    yield* sql`INSERT INTO iam.users (id, name, email) VALUES (${id}, ${name}, ${`${name}-${unique()}@example.com`})`
    yield* sql`INSERT INTO iam.sessions (id, token_hash, user_id, expires_at)
      VALUES (${yield* Ids.make("ses")}, ${Crypto.sha256Hex(token)}, ${id}, '2999-01-01T00:00:00Z')`
    const caller: UserCaller = {
      kind: "user",
      userId: id,
      sessionId: "ses",
      email: `${name}@example.com`,
      organizationId: null,
      via: "bearer"
    }
    return { id, token, caller }
  }).pipe(Effect.orDie)

/** An organization with the default role mappings and, unless `platformId: null`, a platform. */
export const seedOrg = (options: { platformId?: string | null; orgType?: "tenant" | "core-operator" } = {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const id = yield* Ids.make("org")
    const platformId = options.platformId === undefined ? yield* Ids.make("plt") : options.platformId
    yield* sql`INSERT INTO iam.organizations (id, name, slug, org_type, platform_id)
      VALUES (${id}, ${"Org"}, ${`org-${unique()}`}, ${options.orgType ?? "tenant"}, ${platformId})`
    for (const role of DEFAULT_ROLES) {
      yield* sql`INSERT INTO iam.role_mappings (organization_id, role, permissions)
        VALUES (${id}, ${role}, ${JSON.stringify(DEFAULT_ROLE_PERMISSIONS[role])}::jsonb)`
    }
    return { id, platformId }
  }).pipe(Effect.orDie)

/** Make a user a member of an organization. */
export const addMember = (organizationId: string, userId: string, role: "owner" | "admin" | "member") =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`INSERT INTO iam.members (id, organization_id, user_id, role)
      VALUES (${yield* Ids.make("mem")}, ${organizationId}, ${userId}, ${role})`
  }).pipe(Effect.orDie)

/** A tenant organization with an owner, an admin and a plain member, each with a session. */
export const seedTenant = Effect.gen(function*() {
  const org = yield* seedOrg()
  const owner = yield* seedUser("owner")
  const admin = yield* seedUser("admin")
  const member = yield* seedUser("member")
  yield* addMember(org.id, owner.id, "owner")
  yield* addMember(org.id, admin.id, "admin")
  yield* addMember(org.id, member.id, "member")
  return { org, owner, admin, member }
})

/** A user who is an operator (member of the `core-operator` organization, created once). */
export const seedOperator = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const existing = yield* sql<{ id: string }>`SELECT id AS "id" FROM iam.organizations WHERE org_type = 'core-operator'`.pipe(
    Effect.orDie
  )
  const orgId = existing[0]?.id ?? (yield* seedOrg({ platformId: null, orgType: "core-operator" })).id
  const operator = yield* seedUser("operator")
  yield* addMember(orgId, operator.id, "member")
  return operator
})

/** The service caller (static key). */
export const service: Caller = { kind: "service" }

/** Audit rows of one action, oldest first. */
export const auditRows = (action: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ actorId: string | null; actorType: string; organizationId: string | null; targetId: string | null; metadata: unknown }>`
      SELECT actor_id AS "actorId", actor_type AS "actorType", organization_id AS "organizationId",
        target_id AS "targetId", metadata AS "metadata"
      FROM iam.audit_log WHERE action = ${action} ORDER BY occurred_at, id`).pipe(Effect.orDie)
