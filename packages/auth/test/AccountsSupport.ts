import { DEFAULT_ROLE_PERMISSIONS, DEFAULT_ROLES } from "@core/contracts"
import { CoreConfig, ErrorResponse, Ids, type Migrations } from "@core/kernel"
import { makeHttpHarness, type TestRequestInit, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { AccountsLive, AccountsRouter } from "../src/accounts/Http.js"
import { AuthorizationLive } from "../src/authorization/Http.js"
import * as OutboxMailer from "../src/mail/OutboxMailer.js"
import { Mailer } from "../src/mail/Mailer.js"
import { IamMigrations } from "../src/migrations/index.js"

/** The static service key of the test configuration. */
export const STATIC_KEY = "accounts-static-key-0123456789"

/** The `iam` domain with all its migrations, as the server runs them. */
export const iamDomain: Migrations.Domain = IamMigrations

/** The test configuration; `env` adds or overrides variables. */
export const configLayer = (env: Record<string, string> = {}) =>
  CoreConfig.layer({
    NODE_ENV: "test",
    CORE_SECRET: "accounts-secret-accounts-secret-0123456",
    CORE_STATIC_API_KEY: STATIC_KEY,
    CORE_PUBLIC_URL: "https://core.example.com",
    ...env
  })

/** Options of a test stack. */
export interface StackOptions {
  readonly env?: Record<string, string>
  /** Replace the outbox mailer (e.g. SMTP). */
  readonly mailer?: Layer.Layer<Mailer, never, SqlClient.SqlClient | CoreConfig | Ids.Ids>
  /** More layers for the harness runtime (a tracer, a logger). */
  readonly extra?: Layer.Layer<never>
}

/** The accounts services over a test database, with the authorization ports and the outbox mailer. */
export const stackLayer = (options: StackOptions = {}) =>
  AccountsLive.pipe(
    Layer.provideMerge(options.mailer ?? OutboxMailer.layer),
    Layer.provideMerge(AuthorizationLive),
    Layer.provideMerge(Layer.mergeAll(TestDatabase.layer([iamDomain]), configLayer(options.env), Ids.layer)),
    Layer.orDie
  )

/** What a test stack provides. */
export type Stack = Layer.Layer.Success<ReturnType<typeof stackLayer>>

/** The accounts routes with the kernel envelope for what no route answers (an unknown path), as one app. */
export const app = ErrorResponse.withErrorEnvelope(AccountsRouter)

/** Options of one request sent to the harness: the kernel harness's, and the session cookie. */
export interface Send extends TestRequestInit {
  /** Sent as the `core.session_token` cookie. */
  readonly cookie?: string
}

/**
 * The accounts routes on the kernel's harness over one test database: `fetch` sends a real
 * `Request` (a POST when it has a `json` body), `run` runs an effect against the same services.
 */
export const makeHarness = async (options: StackOptions = {}) => {
  const harness = await makeHttpHarness(app, Layer.merge(stackLayer(options), options.extra ?? Layer.empty), {
    baseUrl: "http://iam.test"
  })
  const fetch = (path: string, init: Send = {}) => {
    const { cookie, ...rest } = init
    const headers = new Headers(rest.headers)
    if (cookie !== undefined) headers.set("cookie", `core.session_token=${cookie}`)
    return harness.fetch(path, { ...rest, headers, method: rest.method ?? (rest.json === undefined ? "GET" : "POST") })
  }
  return { ...harness, fetch }
}

/** A running harness. */
export type Harness = Awaited<ReturnType<typeof makeHarness>>

let counter = 0

/** A fresh email address. */
export const freshEmail = (name = "user") => `${name}-${Date.now().toString(36)}${(counter++).toString(36)}@example.com`

/** The password every test user signs up with. */
export const PASSWORD = "correct horse battery staple"

/** Sign a new user up over HTTP; the answer's body, token and cookie header. */
export const signUp = async (harness: Harness, input: { email?: string; name?: string; password?: string } = {}) => {
  const email = input.email ?? freshEmail()
  const response = await harness.fetch("/api/auth/sign-up/email", {
    json: { name: input.name ?? "Ada", email, password: input.password ?? PASSWORD }
  })
  if (response.status !== 200) throw new Error(`sign-up failed: ${response.status} ${await response.text()}`)
  const body = await response.json() as { token: string; user: { id: string; email: string } }
  return { ...body, email, setCookie: response.headers.get("set-cookie") }
}

/** Rows of a SQL query, run against the harness database. */
export const rows = <A extends object>(harness: Harness, query: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  harness.run(Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.orDie(query(sql))))

/** The mail sent to an address, newest first. */
export const mailTo = (harness: Harness, to: string) =>
  rows<{ subject: string; text: string }>(harness, (sql) =>
    sql`SELECT subject, text_body AS text FROM iam.mail_outbox WHERE to_address = ${to} ORDER BY created_at DESC, id DESC`)

/** The text of the newest mail to an address, read through any runtime holding the test database. */
export const latestMailText = (
  run: <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Promise<A>,
  email: string
) =>
  run(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [mail] = yield* sql<{ text_body: string }>`SELECT text_body FROM iam.mail_outbox WHERE to_address = ${email}
      ORDER BY created_at DESC, id DESC LIMIT 1`
    return mail.text_body
  }).pipe(Effect.orDie))

/** The first link of a mail's text. */
export const linkIn = (text: string): URL => {
  const match = /https?:\/\/\S+/.exec(text)
  if (match === null) throw new Error(`no link in: ${text}`)
  return new URL(match[0])
}

/** The path and query of a mailed link, as the harness serves it (identity's base path removed). */
export const servedPath = (link: URL) => `${link.pathname.replace(/^\/api\/v1\/iam/, "")}${link.search}`

/** Audit rows of one action, oldest first. */
export const auditOf = (harness: Harness, action: string) =>
  rows<{ actorId: string | null; actorType: string; outcome: string; targetId: string | null; metadata: unknown; ip: string | null }>(
    harness,
    (sql) =>
      sql`SELECT actor_id AS "actorId", actor_type AS "actorType", outcome, target_id AS "targetId", metadata, ip
        FROM iam.audit_log WHERE action = ${action} ORDER BY occurred_at, id`
  )

/** An organization with the default role mappings and a platform, seeded by SQL. */
export const seedOrganization = (harness: Harness, options: { orgType?: "tenant" | "core-operator"; platformId?: string | null } = {}) =>
  harness.run(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const id = yield* Ids.make("org")
    const platformId = options.platformId === undefined ? yield* Ids.make("plt") : options.platformId
    const slug = `org-${Date.now().toString(36)}${(counter++).toString(36)}`
    yield* sql`INSERT INTO iam.organizations (id, name, slug, org_type, platform_id)
      VALUES (${id}, 'Org', ${slug}, ${options.orgType ?? "tenant"}, ${platformId})`
    for (const role of DEFAULT_ROLES) {
      yield* sql`INSERT INTO iam.role_mappings (organization_id, role, permissions)
        VALUES (${id}, ${role}, ${JSON.stringify(DEFAULT_ROLE_PERMISSIONS[role])}::jsonb)`
    }
    return { id, slug, platformId }
  }).pipe(Effect.orDie))

/** Make a user a member of an organization. */
export const addMember = (harness: Harness, organizationId: string, userId: string, role: "owner" | "admin" | "member") =>
  harness.run(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`INSERT INTO iam.members (id, organization_id, user_id, role)
      VALUES (${yield* Ids.make("mem")}, ${organizationId}, ${userId}, ${role})`
  }).pipe(Effect.orDie))
