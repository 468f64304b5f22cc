import { DEFAULT_ROLE_PERMISSIONS, DEFAULT_ROLES } from "@core/contracts"
import { CoreConfig, Crypto, ErrorResponse, Ids } from "@core/kernel"
import { type HttpHarness, makeHttpHarness, TestDatabase, type TestRequestInit } from "@core/kernel/testing"
import { HttpRouter } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, TestContext } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { Accounts } from "../src/accounts/Accounts.js"
import type { DeviceAuthorizationOptions } from "../src/device/DeviceAuthorization.js"
import { AccountsLive, AccountsRouter } from "../src/accounts/Http.js"
import { AuthorizationLive } from "../src/authorization/Http.js"
import { DeviceRouter, deviceAuthorizationLayer } from "../src/device/Http.js"
import * as OutboxMailer from "../src/mail/OutboxMailer.js"
import { IamMigrations } from "../src/migrations/index.js"

/** The static service key of the test configuration. */
export const STATIC_KEY = "device-static-key-0123456789abcdef"

/** The OAuth client id of the device flow. */
export const CLIENT_ID = "core-cli"

/** The device code grant type. */
export const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"

/** Request facts of service-level calls. */
export const facts = { ip: "192.0.2.10", userAgent: "vitest", requestId: "req-device" }

/** How a test stack is configured. */
export interface StackOptions {
  /** Configuration variables added to (or replacing) the test ones. */
  readonly env?: Record<string, string>
  readonly device?: DeviceAuthorizationOptions
}

/** The test configuration: no `CORE_PUBLIC_URL`, so OAuth addresses follow the request. */
export const configLayer = (env: Record<string, string> = {}) =>
  CoreConfig.layer({
    NODE_ENV: "test",
    CORE_SECRET: "device-secret-device-secret-0123456789",
    CORE_STATIC_API_KEY: STATIC_KEY,
    ...env
  })

/** Device authorization over the accounts and authorization services and a test database. */
export const stackLayer = (options: StackOptions = {}) =>
  deviceAuthorizationLayer(options.device).pipe(
    Layer.provideMerge(AccountsLive),
    Layer.provideMerge(OutboxMailer.layer),
    Layer.provideMerge(AuthorizationLive),
    Layer.provideMerge(Layer.mergeAll(TestDatabase.layer([IamMigrations]), configLayer(options.env), Ids.layer)),
    Layer.orDie
  )

/** What a test stack provides. */
export type Stack = Layer.Layer.Success<ReturnType<typeof stackLayer>>

/** The accounts routes (sign-up, `/api/core/session`) and the device routes, as one identity app. */
export const app = ErrorResponse.withErrorEnvelope(HttpRouter.concat(AccountsRouter, DeviceRouter))

/** Where requests of the harness are sent. */
export const ORIGIN = "http://iam.test"

/** How a harness is built: a test stack, and whether its clock is a `TestClock` (time starts at 0). */
export interface HarnessOptions extends StackOptions {
  readonly testClock?: boolean
}

/** The device app over a test stack, on the kernel's harness. */
export type Harness = HttpHarness<Stack>

/**
 * The device app over its own test database. With `testClock`, the app, `run` and `TestClock.adjust`
 * share one `TestClock` (installed once the stack is built), so tests move time for the server.
 */
export const makeHarness = (options: HarnessOptions = {}): Promise<Harness> =>
  makeHttpHarness(
    app,
    options.testClock === true ? TestContext.TestContext.pipe(Layer.provideMerge(stackLayer(options))) : stackLayer(options),
    { baseUrl: ORIGIN }
  )

/** The harness an `effect` test runs in, for `send`. */
export class CurrentHarness extends Context.Tag("@core/auth/test/CurrentHarness")<CurrentHarness, Harness>() {}

/**
 * A harness for the enclosing `describe` (started before its tests, disposed after), and
 * `effect(name, test)`: `test` runs inside the harness — its services and database for the seed
 * helpers, its `TestClock` (on by default), and `send` to its app.
 */
export const useHarness = (options: HarnessOptions = {}) => {
  let harness: Harness | undefined
  beforeAll(async () => {
    harness = await makeHarness({ testClock: true, ...options })
  })
  afterAll(() => harness?.dispose())
  return {
    effect: <A, E>(name: string, test: () => Effect.Effect<A, E, Stack | CurrentHarness>, timeout?: number) =>
      it(name, () => harness!.run(Effect.provideService(test(), CurrentHarness, harness!)), timeout)
  }
}

/** One request: `form` is sent form-encoded, `json` as JSON; `token` as a bearer. */
export interface Send {
  readonly method?: string
  readonly form?: Record<string, string>
  readonly json?: unknown
  readonly body?: string
  readonly token?: string
  readonly cookie?: string
  readonly headers?: Record<string, string>
}

/** A response, read. */
export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: any
}

/** The harness request a `Send` describes (POST when it has a body). */
export const requestInit = (init: Send = {}): TestRequestInit => {
  const headers = new Headers(init.headers)
  if (init.cookie !== undefined) headers.set("cookie", `core.session_token=${init.cookie}`)
  let body = init.body
  if (init.form !== undefined) {
    headers.set("content-type", "application/x-www-form-urlencoded")
    body = new URLSearchParams(init.form).toString()
  }
  const hasBody = body !== undefined || init.json !== undefined
  return {
    method: init.method ?? (hasBody ? "POST" : "GET"),
    headers,
    ...(body === undefined ? {} : { body }),
    ...(init.json === undefined ? {} : { json: init.json }),
    ...(init.token === undefined ? {} : { token: init.token })
  }
}

/** Read a response: its JSON body (else its text). */
export const read = async (response: Response): Promise<Answer> => {
  const text = await response.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body }
}

/** Send one request to the harness the test runs in. */
export const send = (path: string, init: Send = {}) =>
  Effect.flatMap(CurrentHarness, (harness) => Effect.promise(() => harness.fetch(path, requestInit(init)).then(read)))

let counter = 0

/** A fresh email address. */
export const freshEmail = (name = "device") => `${name}-${Date.now().toString(36)}${(counter++).toString(36)}@example.com`

/** A user signed up through `Accounts`, with a web session token. */
export const newUser = (name = "device") =>
  Effect.map(
    Effect.flatMap(Accounts, (accounts) =>
      accounts.signUp({ name: "Ada", email: freshEmail(name), password: "correct horse battery staple" }, facts)),
    (signed) => ({ id: signed.user.id, email: signed.user.email, token: signed.token })
  )

/** An organization with the default role mappings and a platform; `member` joins it with `role`. */
export const seedOrganization = (member?: { readonly userId: string; readonly role: "owner" | "admin" | "member" }) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const id = yield* Ids.make("org")
    const platformId = yield* Ids.make("plt")
    yield* sql`INSERT INTO iam.organizations (id, name, slug, platform_id)
      VALUES (${id}, 'Org', ${`org-${Date.now().toString(36)}${(counter++).toString(36)}`}, ${platformId})`
    for (const role of DEFAULT_ROLES) {
      yield* sql`INSERT INTO iam.role_mappings (organization_id, role, permissions)
        VALUES (${id}, ${role}, ${JSON.stringify(DEFAULT_ROLE_PERMISSIONS[role])}::jsonb)`
    }
    if (member !== undefined) {
      yield* sql`INSERT INTO iam.members (id, organization_id, user_id, role)
        VALUES (${yield* Ids.make("mem")}, ${id}, ${member.userId}, ${member.role})`
    }
    return { id, platformId }
  }).pipe(Effect.orDie)

/** Rows of a query against the test database. */
export const rows = <A extends object>(query: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.orDie(query(sql)))

/** The device code row of a device code. */
export const deviceRow = (deviceCode: string) =>
  Effect.map(
    rows<Record<string, any>>((sql) => sql`SELECT * FROM iam.device_codes WHERE device_code_hash = ${Crypto.sha256Hex(deviceCode)}`),
    (found) => found[0]
  )

/** The session row of a session token. */
export const sessionRow = (token: string) =>
  Effect.map(
    rows<Record<string, any>>((sql) => sql`SELECT * FROM iam.sessions WHERE token_hash = ${Crypto.sha256Hex(token)}`),
    (found) => found[0]
  )

/** The refresh token row of a refresh token. */
export const refreshRow = (token: string) =>
  Effect.map(
    rows<Record<string, any>>((sql) => sql`SELECT * FROM iam.refresh_tokens WHERE token_hash = ${Crypto.sha256Hex(token)}`),
    (found) => found[0]
  )

/** Audit rows of one action and target, oldest first (metadata parsed). */
export const auditOf = (action: string, targetId?: string) =>
  Effect.map(rows<{ actorId: string | null; actorType: string; outcome: string; targetType: string | null; targetId: string | null; metadata: any; ip: string | null }>(
    (sql) =>
      sql`SELECT actor_id AS "actorId", actor_type AS "actorType", outcome, target_type AS "targetType",
          target_id AS "targetId", metadata, ip
        FROM iam.audit_log WHERE action = ${action} AND (${targetId ?? null}::text IS NULL OR target_id = ${targetId ?? null})
        ORDER BY occurred_at, id`
  ), (found) => found.map((row) => ({ ...row, metadata: typeof row.metadata === "string" ? JSON.parse(row.metadata) : row.metadata })))

/** The OAuth error body a test expects. */
export const oauthError = (error: string, description?: string) => ({
  error,
  error_description: description ?? expect.any(String)
})
