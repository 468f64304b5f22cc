import * as Node from "@core/http/node"
import { PlatformRouteRefs } from "@core/contracts/routes"
import { ErrorResponse } from "@core/kernel"
import { Platforms, RegistryRouter, RegistryServices } from "@core/registry"
import { ConflictError, createClient, UnauthorizedError } from "@core/sdk"
import { HttpRouter } from "@effect/platform"
import { Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AccountsRouter } from "../src/accounts/Http.js"
import { OrganizationsRouter } from "../src/organizations/Http.js"
import { iamOrganizations } from "../../sdk/src/resources/iam-organizations.js"
import { createTransport } from "../../sdk/src/transport.js"
import { freshEmail, freshSlug, PASSWORD, stackLayer, STATIC_KEY } from "./OrganizationsSupport.js"

/** What a bearer caller of org-setup is told, by the server and by the SDK. */
const COOKIE_ONLY = "This route takes the session cookie only, not a bearer token or an API key; " +
  "with a bearer token, use POST /api/auth/organization/create"

/**
 * Issue 11 (SDK from a scratch project): org-setup with a bearer said a bare 401, and a taken slug
 * was a 400 on one creation route and a 409 on the others. Identity and the registry on a real
 * server, called through the SDK (base path "", as for a service reached directly).
 */
describe("SDK: organization setup with a bearer, and a taken slug on every creation route", () => {
  const runtime = ManagedRuntime.make(Layer.provideMerge(RegistryServices.pipe(Layer.provideMerge(Platforms.Default)), stackLayer()))
  const app = ErrorResponse.withErrorEnvelope(HttpRouter.concat(HttpRouter.concat(AccountsRouter, OrganizationsRouter), RegistryRouter))
  let server: Node.Served

  const options = (token?: string) => ({ baseUrl: server.url, retry: 0, ...(token === undefined ? {} : { token }) })
  /** `client.iam` reached directly (base path ""), and the whole client for the registry. */
  const client = (token?: string) => ({
    iam: { organizations: iamOrganizations(createTransport(options(token)), "").organizations },
    call: createClient(options(token)).call
  })
  const signUp = async (name: string) => {
    const response = await fetch(`${server.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, email: freshEmail(name.toLowerCase()), password: PASSWORD })
    })
    const body = await response.json() as { token: string; user: { id: string } }
    return { id: body.user.id, token: body.token }
  }
  const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error)

  beforeAll(async () => {
    server = await Node.serve(app, { layer: Layer.succeedContext((await runtime.runtime()).context) })
  })
  afterAll(async () => {
    await server.close()
    await runtime.dispose()
  })

  it("org-setup with a bearer: 401 that names the session cookie and the bearer route, on the wire and in the SDK error", async () => {
    const owner = await signUp("Bearer")
    const json = { name: "Setup", slug: freshSlug("bearer") }
    const raw = await fetch(`${server.url}/api/core/org-setup`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${owner.token}` },
      body: JSON.stringify(json)
    })
    expect(raw.status).toBe(401)
    expect(await raw.json()).toEqual({ error: { code: "UNAUTHORIZED", message: COOKIE_ONLY, requestId: expect.any(String), details: null } })
    const anonymous = await fetch(`${server.url}/api/core/org-setup`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(json) })
    expect((await anonymous.json()).error.message).toBe("Authentication required: send a session token (Authorization: Bearer <token>, or the core.session_token cookie) or an API key (x-api-key: core_<key>)")

    const refused = await failure(client(owner.token).iam.organizations.setup(json))
    expect(refused).toBeInstanceOf(UnauthorizedError)
    expect(refused).toMatchObject({ status: 401, code: "UNAUTHORIZED" })
    expect((refused as Error).message).toBe(
      `${COOKIE_ONLY} (organizations.setup: pass headers: { cookie: "core.session_token=<token>" }, or call organizations.create with the bearer)`
    )
    const created = await client(owner.token).iam.organizations.create(json)
    expect(created).toMatchObject({ slug: json.slug, members: [{ userId: owner.id, role: "owner" }] })
  })

  it("a taken slug is a ConflictError (409) on the plugin create, org-setup, the operator create and the registry", async () => {
    const owner = await signUp("Taken")
    const slug = freshSlug("taken")
    const me = client(owner.token).iam.organizations
    await me.create({ name: "First", slug })

    const plugin = await failure(me.create({ name: "Again", slug }))
    expect(plugin).toBeInstanceOf(ConflictError)
    expect(plugin).toMatchObject({ status: 409, code: "ORGANIZATION_ALREADY_EXISTS", message: "Organization already exists" })

    const setup = await failure(client().iam.organizations.setup({ name: "Again", slug }, { headers: { cookie: `core.session_token=${owner.token}` } }))
    expect(setup).toBeInstanceOf(ConflictError)
    expect(setup).toMatchObject({ status: 409, code: "CONFLICT", requestId: expect.any(String) })

    const service = client(STATIC_KEY)
    const forOwner = await failure(service.iam.organizations.createForOwner({ name: "Again", slug, ownerId: owner.id, orgType: "tenant" }))
    expect(forOwner).toBeInstanceOf(ConflictError)
    expect(forOwner).toMatchObject({ status: 409, code: "CONFLICT" })

    const platform = await failure(service.call(PlatformRouteRefs.createPlatform, { body: { name: "Again", slug } }, { basePath: "" }))
    expect(platform).toBeInstanceOf(ConflictError)
    expect(platform).toMatchObject({ status: 409, code: "CONFLICT", message: "Platform slug already taken", details: { field: "slug" } })
  })
})
