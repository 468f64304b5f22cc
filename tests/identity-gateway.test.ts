import { createClient, CoreApiError } from "@core/sdk"
import { describe, expect, it } from "vitest"
import { SHARED_STATIC_KEY, useSharedServer } from "./support/sharedServer.js"

/**
 * The identity service as a user meets it: the real all-in-one server (`core-server start`),
 * reached through its gateway at `/api/v1/iam`, driven with the SDK.
 */
const SLOW = 180_000
const STATIC_KEY = SHARED_STATIC_KEY

const caught = async (promise: Promise<unknown>): Promise<CoreApiError> => {
  try {
    await promise
  } catch (error) {
    if (error instanceof CoreApiError) return error
    throw error
  }
  throw new Error("expected the call to fail")
}

describe("identity through the all-in-one server's gateway", () => {
  const server = useSharedServer(SLOW)

  const signUp = async (name: string, email: string) => {
    const anonymous = createClient({ baseUrl: server.base })
    const { token, user } = await anonymous.iam.signUp({ name, email, password: "correct horse battery" })
    return { user, token, client: createClient({ baseUrl: server.base, token }) }
  }

  it("signs up, reads the enriched session, sets up an organization and its platform, and keeps tenants apart", async () => {
    const ada = await signUp("Ada", "ada@example.com")
    const bob = await signUp("Bob", "bob@example.com")

    const session = await ada.client.iam.sessions.current()
    expect(session.user.email).toBe("ada@example.com")
    expect(session.role).toBeNull()

    const setup = await fetch(`${server.base}/api/v1/iam/api/core/org-setup`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: `core.session_token=${ada.token}` },
      body: JSON.stringify({ name: "Acme", slug: "acme" })
    })
    expect(setup.status).toBe(201)
    const acme = await setup.json() as { orgId: string; platformId: string; slug: string; name: string }
    expect(acme).toMatchObject({ slug: "acme", name: "Acme" })
    expect(acme.platformId).toMatch(/^plt_/)

    const taken = await fetch(`${server.base}/api/v1/iam/api/core/org-setup`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: `core.session_token=${bob.token}` },
      body: JSON.stringify({ name: "Acme again", slug: "acme" })
    })
    expect(taken.status).toBe(409)

    await ada.client.iam.organizations.setActive({ organizationId: acme.orgId })
    const active = await ada.client.iam.sessions.current()
    expect(active.role).toBe("owner")
    expect(active.permissions).toContain("*")
    expect(active.tenant).toMatchObject({ organizationId: acme.orgId, platformId: acme.platformId, platformStatus: "active" })

    const invitation = await ada.client.iam.invitations.create(acme.orgId, { email: "carol@example.com" })
    expect(invitation).toMatchObject({ organizationId: acme.orgId, email: "carol@example.com", role: "member", status: "pending" })

    const hidden = await caught(bob.client.iam.invitations.list(acme.orgId))
    expect([hidden.status, hidden.code]).toEqual([404, "NOT_FOUND"])
    const rolesHidden = await caught(bob.client.iam.roles.list(acme.orgId))
    expect(rolesHidden.status).toBe(404)
  }, SLOW)

  it("creates an API key once, validates it with the static key, and never lists the secret", async () => {
    const dee = await signUp("Dee", "dee@example.com")
    const setup = await fetch(`${server.base}/api/v1/iam/api/core/org-setup`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: `core.session_token=${dee.token}` },
      body: JSON.stringify({ name: "Dee Co", slug: "dee-co" })
    }).then((response) => response.json() as Promise<{ orgId: string; platformId: string }>)

    const created = await dee.client.iam.apiKeys.create({ organizationId: setup.orgId, name: "ci" })
    expect(created.key).toMatch(/^core_/)
    const listed = await dee.client.iam.apiKeys.list(setup.orgId)
    expect(JSON.stringify(listed)).not.toContain(created.key)

    const service = createClient({ baseUrl: server.base, token: STATIC_KEY })
    const validation = await service.iam.apiKeys.validate(created.key)
    expect(validation).toMatchObject({ valid: true, organizationId: setup.orgId, platformId: setup.platformId })

    await service.iam.platformStatus.set({ platformId: setup.platformId, status: "suspended" })
    const suspended = await service.iam.apiKeys.validate(created.key)
    expect(suspended).toMatchObject({ platformStatus: "suspended" })
  }, SLOW)

  it("answers bad input with 400 VALIDATION_ERROR and a missing session with 401, never 500", async () => {
    const anonymous = createClient({ baseUrl: server.base })
    const bad = await fetch(`${server.base}/api/v1/iam/api/core/org-setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "", slug: "Not Valid" })
    })
    expect(bad.status).toBe(401)
    const notJson = await fetch(`${server.base}/api/v1/iam/api/core/roles`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${STATIC_KEY}` },
      body: "{oops"
    })
    expect([notJson.status, (await notJson.json() as { error: { code: string } }).error.code]).toEqual([400, "INVALID_JSON"])
    const unauthorized = await caught(anonymous.iam.sessions.current())
    expect([unauthorized.status, unauthorized.code]).toEqual([401, "UNAUTHORIZED"])
  }, SLOW)

  it("refuses the poisoned reset link and every open redirect at the gateway (decision 0555)", async () => {
    const victim = await signUp("Vic", "victim@example.com")
    const post = (path: string, body: unknown) =>
      fetch(`${server.base}/api/v1/iam${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
    for (const target of ["/\t/evil.example.com", "/\n/evil.example.com", "/\r/evil.example.com", "/\n\r/evil.example.com"]) {
      const reset = await post("/api/auth/request-password-reset", { email: victim.user.email, redirectTo: target })
      expect([reset.status, await reset.json()]).toEqual([403, { code: "INVALID_REDIRECT_URL", message: "Invalid redirectURL" }])
    }
    for (const target of ["https://evil.example.com/steal", "javascript:alert(1)", "//evil", "/\\evil.example.com"]) {
      const signIn = await post("/api/auth/sign-in/email", { email: victim.user.email, password: "correct horse battery", callbackURL: target })
      expect([signIn.status, await signIn.json()]).toEqual([403, { code: "INVALID_CALLBACK_URL", message: "Invalid callbackURL" }])
    }
    const allowed = await post("/api/auth/sign-in/email", { email: victim.user.email, password: "correct horse battery", callbackURL: "/account" })
    expect([allowed.status, (await allowed.json() as { url: string }).url]).toEqual([200, "/account"])
  }, SLOW)
})
