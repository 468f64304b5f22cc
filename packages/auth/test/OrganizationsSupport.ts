import type { Iam } from "@core/contracts"
import { CoreConfig, type Database, ErrorResponse, Ids } from "@core/kernel"
import { makeHttpHarness, TestDatabase, type TestRequestInit } from "@core/kernel/testing"
import { Platforms, RegistryMigrations } from "@core/registry"
import { HttpRouter } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { expect } from "vitest"
import { AccountsLive, AccountsRouter } from "../src/accounts/Http.js"
import { ApiKeys } from "../src/authorization/ApiKeys.js"
import { AuthorizationLive } from "../src/authorization/Http.js"
import { OrganizationsLive, OrganizationsRouter } from "../src/organizations/Http.js"
import * as OutboxMailer from "../src/mail/OutboxMailer.js"
import { IamMigrations } from "../src/migrations/index.js"
import { PlatformSetup } from "../src/organizations/PlatformSetup.js"
import * as RegistryPlatformSetup from "../src/organizations/RegistryPlatformSetup.js"

/** The static service key of the organization tests. */
export const STATIC_KEY = "organizations-static-key-0123456789"

/** The password every test user signs up with. */
export const PASSWORD = "correct horse battery staple"

/** The registry in process, as the all-in-one server wires it. */
export const RegistryPlatformSetupLive = Layer.effect(
  PlatformSetup,
  Effect.map(Platforms, (platforms) => RegistryPlatformSetup.make(platforms.create))
).pipe(Layer.provide(Platforms.Default))

/** A registry that always fails (rollback tests). */
export const FailingPlatformSetup = Layer.succeed(PlatformSetup, RegistryPlatformSetup.failing)

/** Options of a test stack. */
export interface StackOptions {
  readonly driver?: Database.Driver
  readonly platformSetup?: Layer.Layer<PlatformSetup, never, SqlClient.SqlClient | Ids.Ids>
}

const configLayer = CoreConfig.layer({
  NODE_ENV: "test",
  CORE_SECRET: "organizations-secret-0123456789-abcdef",
  CORE_STATIC_API_KEY: STATIC_KEY,
  CORE_PUBLIC_URL: "https://core.example.com"
})

/** Identity (accounts, authorization, organizations) and the registry's platforms over one test database. */
export const stackLayer = (options: StackOptions = {}) =>
  OrganizationsLive.pipe(
    Layer.provideMerge(options.platformSetup ?? RegistryPlatformSetupLive),
    Layer.provideMerge(AccountsLive),
    Layer.provideMerge(OutboxMailer.layer),
    Layer.provideMerge(AuthorizationLive),
    Layer.provideMerge(Layer.mergeAll(
      TestDatabase.layer([IamMigrations, RegistryMigrations], { driver: options.driver ?? TestDatabase.driver }),
      configLayer,
      Ids.layer
    )),
    Layer.orDie
  )

/** What a test stack provides. */
export type Stack = Layer.Layer.Success<ReturnType<typeof stackLayer>>

/** The accounts and organization routes with the kernel envelope for the documented ones. */
export const app = ErrorResponse.withErrorEnvelope(HttpRouter.concat(AccountsRouter, OrganizationsRouter))

/** One request to the harness: the kernel harness's, plus a `core.session_token` cookie. */
export interface Send extends TestRequestInit {
  readonly cookie?: string
}

let counter = 0

/** A fresh email address. */
export const freshEmail = (name = "user") => `${name}-${Date.now().toString(36)}${(counter++).toString(36)}@example.com`

/** A fresh organization slug. */
export const freshSlug = (name = "org") => `${name}-${Date.now().toString(36)}${(counter++).toString(36)}`

/**
 * The identity routes on the kernel's harness over one test database: `fetch` sends a real
 * `Request` (POST when it carries `json`); `run` runs an effect against the same services.
 */
export const makeHarness = async (options: StackOptions = {}) => {
  const harness = await makeHttpHarness(app, stackLayer(options))
  const fetch = (path: string, { cookie, ...init }: Send = {}) => {
    const headers = new Headers(init.headers)
    if (cookie !== undefined) headers.set("cookie", `core.session_token=${cookie}`)
    return harness.fetch(path, { ...init, headers, method: init.method ?? (init.json === undefined ? "GET" : "POST") })
  }
  return { ...harness, fetch }
}

/** A running harness. */
export type Harness = Awaited<ReturnType<typeof makeHarness>>

/** A signed-up user: id, email and session token. */
export interface TestUser {
  readonly id: string
  readonly email: string
  readonly token: string
}

/** Sign a new user up over HTTP. */
export const signUp = async (harness: Harness, name = "Ada", email = freshEmail(name.toLowerCase())): Promise<TestUser> => {
  const response = await harness.fetch("/api/auth/sign-up/email", { json: { name, email, password: PASSWORD } })
  if (response.status !== 200) throw new Error(`sign-up failed: ${response.status} ${await response.text()}`)
  const body = await response.json() as { token: string; user: { id: string } }
  return { id: body.user.id, email, token: body.token }
}

/** Send a request and read its status and JSON body. */
export const call = async (harness: Harness, path: string, init: Send = {}) => {
  const response = await harness.fetch(path, init)
  const text = await response.text()
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) as any, headers: response.headers }
}

/** A tenant organization created through the plugin by `owner`; its id, slug and platform id. */
export const createOrganization = async (harness: Harness, owner: TestUser, slug = freshSlug()) => {
  const { status, body } = await call(harness, "/api/auth/organization/create", {
    token: owner.token,
    json: { name: `Org ${slug}`, slug }
  })
  if (status !== 200) throw new Error(`create failed: ${status} ${JSON.stringify(body)}`)
  const rows = await query<{ platformId: string }>(harness, (sql) =>
    sql`SELECT platform_id AS "platformId" FROM iam.organizations WHERE id = ${body.id}`)
  return { id: body.id as string, slug, platformId: rows[0].platformId }
}

/** Make a user a member through an accepted invitation. */
export const join = async (harness: Harness, organizationId: string, inviter: TestUser, user: TestUser, role: "owner" | "admin" | "member") => {
  const invited = await call(harness, "/api/auth/organization/invite-member", {
    token: inviter.token,
    json: { email: user.email, role, organizationId }
  })
  if (invited.status !== 200) throw new Error(`invite failed: ${invited.status} ${JSON.stringify(invited.body)}`)
  const accepted = await call(harness, "/api/auth/organization/accept-invitation", {
    token: user.token,
    json: { invitationId: invited.body.id }
  })
  if (accepted.status !== 200) throw new Error(`accept failed: ${accepted.status} ${JSON.stringify(accepted.body)}`)
  return accepted.body.member as { id: string }
}

/** Two tenants: `org` with an owner, an admin and a member, and `other`, owned by `stranger`. */
export const makeTenants = async (harness: Harness) => {
  const owner = await signUp(harness, "Owner")
  const admin = await signUp(harness, "Admin")
  const member = await signUp(harness, "Member")
  const stranger = await signUp(harness, "Stranger")
  const org = await createOrganization(harness, owner)
  const other = await createOrganization(harness, stranger)
  await join(harness, org.id, owner, admin, "admin")
  const memberId = (await join(harness, org.id, owner, member, "member")).id
  return { owner, admin, member, stranger, org, other, memberId }
}

/** An API key of an organization, created by `creator` (who must hold its permissions there). */
export const createApiKey = (
  harness: Harness,
  creator: TestUser,
  organizationId: string,
  permissions: NonNullable<Iam.CreateApiKeyRequest["permissions"]>
) =>
  harness.run(Effect.flatMap(ApiKeys, (keys) =>
    keys.create(
      { kind: "user", userId: creator.id, sessionId: "ses_seed", email: creator.email, organizationId, via: "bearer" },
      { organizationId, permissions }
    )))

/** Rows of a SQL query against the harness database. */
export const query = <A extends object>(
  harness: Harness,
  statement: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>
) => harness.run(Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.orDie(statement(sql))))

/** Audit rows of one action, oldest first. */
export const auditOf = (harness: Harness, action: string) =>
  query<{ actorId: string | null; actorType: string; organizationId: string | null; targetId: string | null; metadata: unknown }>(
    harness,
    (sql) =>
      sql`SELECT actor_id AS "actorId", actor_type AS "actorType", organization_id AS "organizationId",
          target_id AS "targetId", metadata
        FROM iam.audit_log WHERE action = ${action} ORDER BY occurred_at, id`
  )

/** The error envelope of a documented route. */
export const envelope = (code: string, message: string, details: unknown = null) => ({
  error: { code, message, requestId: expect.any(String), details }
})

/** The `{ code, message }` body of a better-auth route. */
export const libraryError = (code: string, message: string) => ({ code, message })
