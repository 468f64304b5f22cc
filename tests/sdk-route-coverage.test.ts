import * as Contracts from "@core/contracts"
import { ROUTE_REFS, type RouteRef } from "@core/contracts/routes"
import { createClient } from "@core/sdk"
import { describe, expect, it } from "vitest"

/**
 * Every route of the catalogue of `@core/contracts` (the generated route table: the three seeds'
 * routes and DESIGN's additions) has a method of `@core/sdk`. The test does not read the SDK's
 * source: it calls every method of a `createClient` whose injected `fetch` records the requests,
 * and maps each request (method, path under its gateway prefix) back to its catalogued route. A
 * route no method reaches fails the test, named, unless it is listed below with its reason
 * (decision 0510).
 */

/** Routes the SDK leaves out on purpose, each with its reason (decision 0510). */
const NOT_IN_THE_SDK: Readonly<Record<string, string>> = {
  // The identity service's HTML pages and their form posts: a browser navigates to them.
  "WebRoutes.homePage": "an HTML page for browsers",
  "WebRoutes.signInPage": "an HTML page for browsers",
  "WebRoutes.submitSignIn": "an HTML form post answering 303 to a page (iam.signIn is the API)",
  "WebRoutes.signUpPage": "an HTML page for browsers",
  "WebRoutes.submitSignUp": "an HTML form post answering 303 to a page (iam.signUp is the API)",
  "WebRoutes.submitSignOut": "an HTML form post answering 303 to a page (iam.signOut is the API)",
  "WebRoutes.accountPage": "an HTML page for browsers",
  "WebRoutes.orgSetupPage": "an HTML page for browsers",
  "WebRoutes.submitOrgSetup": "an HTML form post answering 303 to a page (iam.organizations.setup is the API)",
  "WebRoutes.forgotPasswordPage": "an HTML page for browsers",
  "WebRoutes.submitForgotPassword": "an HTML form post answering a page (iam.password.requestReset is the API)",
  "WebRoutes.resetPasswordPage": "an HTML page for browsers",
  "WebRoutes.submitResetPassword": "an HTML form post answering 303 to a page (iam.password.reset is the API)",
  "WebRoutes.devicePage": "an HTML page for browsers",
  "WebRoutes.submitDeviceDecision": "an HTML form post answering a page (iam.device.authorize and deny are the API)",
  "AccountRoutes.resetPasswordLanding": "where a mailed reset link lands in a browser: a 302 to its callbackURL",
  // The local billing portal's pages: the URL of billing.portal() is opened in a browser.
  "BillingRoutes.portalPage": "the local customer portal's HTML page, opened from billing.portal()'s url",
  "BillingRoutes.portalPaymentMethod": "the local customer portal's form post (303 back to the page)",
  "BillingRoutes.portalCancel": "the local customer portal's form post (303 back to the page)",
  // Called by others than a client.
  "BillingRoutes.stripeWebhook": "called by Stripe with its signature, never by a client",
  "BillingRoutes.ensurePlatformSubscription": "called by the registry's creation hook in another process (decision 0447), never by a client",
  "BillingRoutes.createSubscription": "reserved by the seed: answers 501 NOT_IMPLEMENTED (billing.upgrade subscribes)",
  "ProvisioningRoutes.setPlatformStatus": "internal: the static service key only, called by the registry's suspend and restore",
  // The same operation at a second address: the SDK calls the first.
  "OrganizationRoutes.listOrganizationsPost": "better-auth's POST form of listOrganizations (iam.organizations.list)",
  "OrganizationRoutes.getFullOrganizationPost": "better-auth's POST form of getFullOrganization (iam.organizations.getFull)",
  "OrganizationRoutes.listMembersPost": "better-auth's POST form of listMembers (iam.members.list)",
  "OrganizationRoutes.getInvitationPost": "better-auth's POST form of getInvitation (iam.invitations.get)",
  "OrganizationRoutes.listInvitationsPost": "better-auth's POST form of listInvitations (iam.invitations.listAll)",
  "AuthorizationRoutes.listAudit": "the audit log's first address; the same route as listAuditEvents (iam.audit.list)",
  "AuthorizationRoutes.listAuditLog": "the audit log's third address; the same route as listAuditEvents (iam.audit.list)",
  "DeviceRoutes.gatewayAuthorizationServerMetadata": "the same metadata as authorizationServerMetadata (iam.oauth.metadata) at RFC 8414's path-inserted address, for OAuth discovery",
  // MCP Streamable HTTP: client.vault posts stateless JSON-RPC, with no session and no stream.
  "VaultRoutes.mcpGet": "the server-to-client stream the vault does not offer (405)",
  "VaultRoutes.mcpDelete": "ends an MCP session; client.vault opens none (stateless tools/call)",
  "VaultRoutes.protectedResourceMetadata": "RFC 9728 discovery for OAuth-capable MCP clients; client.vault already holds its credential",
}

/** Methods of the client that are not a route's: the generic ones, and `health()` (the server's `/health`, no catalogued route). */
const GENERIC = new Set(["request", "call", "paginate", "health"])

interface Catalogued {
  readonly name: string
  readonly ref: RouteRef
  readonly pattern: RegExp
  readonly params: number
  /** Its query takes a `cursor`: a paged list, which needs a method to `for await` over. */
  readonly paged: boolean
}

/** Whether the declaration of `Namespace.Catalogue.route` in `@core/contracts` has a `cursor` in its query. */
const isPaged = (namespace: string, catalogue: string, route: string): boolean => {
  const spec = (Contracts as unknown as Record<string, Record<string, Record<string, Contracts.RouteSpec>>>)[namespace]?.[catalogue]?.[route]
  const query = spec?.request?.query as { readonly shape?: Record<string, unknown> } | undefined
  return query?.shape !== undefined && "cursor" in query.shape
}

const PLACEHOLDER = /\{[^}]+\}|:[A-Za-z_][A-Za-z0-9_]*/g
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const catalogued: ReadonlyArray<Catalogued> = Object.entries(ROUTE_REFS).flatMap(([namespace, catalogues]) =>
  Object.entries(catalogues).flatMap(([catalogue, refs]) =>
    Object.entries(refs as Readonly<Record<string, RouteRef>>).map(([route, ref]) => {
      const full = `${ref.prefix}${ref.path}`
      const literal = full.split(PLACEHOLDER).map(escape)
      return {
        name: `${catalogue}.${route}`,
        ref,
        pattern: new RegExp(`^${literal.join("[^/]+")}$`),
        params: literal.length - 1,
        paged: isPaged(namespace, catalogue, route)
      }
    })
  )
)

/** The catalogued route a request reached: the one of its method whose path matches with the fewest placeholders. */
const routeOf = (method: string, pathname: string): Catalogued | undefined =>
  catalogued.filter((entry) => entry.ref.method === method && entry.pattern.test(pathname)).sort((a, b) => a.params - b.params)[0]

/** A body every kind of answer the SDK reads can live with: a page, a JSON-RPC result, a job. */
const ANSWER = JSON.stringify({
  data: [],
  hasMore: false,
  pagination: { hasMore: false },
  jsonrpc: "2.0",
  id: 1,
  result: { content: [{ type: "text", text: "{}" }] },
  status: "COMPLETED"
})

type Method = (...args: ReadonlyArray<unknown>) => unknown

/** Every function of the client, by its dotted path. */
const methodsOf = (value: unknown, path = ""): Array<readonly [string, Method]> =>
  typeof value === "function"
    ? [[path, value as Method]]
    : typeof value === "object" && value !== null
    ? Object.entries(value).flatMap(([key, inner]) => methodsOf(inner, path === "" ? key : `${path}.${key}`))
    : []

/**
 * Calls one method with placeholder arguments (`"x"` for each: an id, a body, a query; the SDK
 * sends what it is given) on a client of its own, and answers the routes it reached within
 * `windowMs`. A method that waits (polling, a stream) is cut off: its fetch then fails.
 */
const routesReachedBy = async (pick: (client: ReturnType<typeof createClient>) => Method, windowMs: number) => {
  const reached = new Set<string>()
  let iterates = false
  let open = true
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    if (!open) throw new TypeError("the coverage window is closed")
    const request = new Request(input, init)
    const { pathname } = new URL(request.url)
    reached.add(routeOf(request.method, pathname)?.name ?? `uncatalogued ${request.method} ${pathname}`)
    return new Response(ANSWER, { status: 200, headers: { "content-type": "application/json" } })
  }
  const client = createClient({ baseUrl: "http://core.test", token: "t", fetch, retry: 0 })
  const run = async () => {
    const result = pick(client)("x", "x", "x", "x", "x", "x") as unknown
    if (typeof result === "object" && result !== null && Symbol.asyncIterator in result) {
      iterates = true
      for await (const _ of result as AsyncIterable<unknown>) break
    } else await result
  }
  await Promise.race([run().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, windowMs))])
  open = false
  return { reached, iterates }
}

describe("route coverage of @core/sdk", () => {
  it("reaches every catalogued route from a method, but the ones listed with a reason", async () => {
    const paths = methodsOf(createClient({ baseUrl: "http://core.test" })).map(([path]) => path).filter((path) => !GENERIC.has(path))
    const reachedBy = new Map<string, Array<string>>()
    const iteratedBy = new Map<string, Array<string>>()
    for (const path of paths) {
      const pick = (client: ReturnType<typeof createClient>) => {
        const parts = path.split(".")
        const owner = parts.slice(0, -1).reduce<any>((value, key) => value[key], client)
        return (owner[parts.at(-1)!] as Method).bind(owner)
      }
      const { reached, iterates } = await routesReachedBy(pick, 100)
      for (const route of reached) {
        reachedBy.set(route, [...(reachedBy.get(route) ?? []), path])
        if (iterates) iteratedBy.set(route, [...(iteratedBy.get(route) ?? []), path])
      }
    }

    const missing = catalogued
      .filter((entry) => !reachedBy.has(entry.name) && !(entry.name in NOT_IN_THE_SDK))
      .map((entry) => `${entry.name} (${entry.ref.method} ${entry.ref.prefix}${entry.ref.path})`)
    expect(missing, "catalogued routes without an SDK method: add one, or list the route in NOT_IN_THE_SDK with its reason").toEqual([])

    // Nothing the SDK sends lies outside the catalogue, and no listed exception is reached after all (or gone).
    expect([...reachedBy.keys()].filter((route) => route.startsWith("uncatalogued "))).toEqual([])
    expect(Object.keys(NOT_IN_THE_SDK).filter((name) => reachedBy.has(name) || !catalogued.some((entry) => entry.name === name))).toEqual([])
    // Every paged list (a `cursor` in its query) has a method that pages through it with `for await`.
    const paged = catalogued.filter((entry) => entry.paged && !(entry.name in NOT_IN_THE_SDK))
    expect(paged.filter((entry) => !iteratedBy.has(entry.name)).map((entry) => entry.name), "paged lists without a for-await method (all())").toEqual([])
    expect(paged.length).toBeGreaterThan(15)
    expect(paths.length).toBeGreaterThan(150)
    expect(catalogued.length - Object.keys(NOT_IN_THE_SDK).length).toBe(reachedBy.size)
  })

  it("names the route a request reaches: the literal path wins over a placeholder", () => {
    expect(routeOf("GET", "/api/v1/platforms/plt_1")?.name).toBe("PlatformRoutes.getPlatform")
    expect(routeOf("GET", "/api/v1/resources/lookup")?.name).toBe("ResourceFamilyRoutes.lookupResource")
    expect(routeOf("DELETE", "/api/v1/iam/api/core/roles/org_1/admin")?.name).toBe("AuthorizationRoutes.deleteRoleMapping")
    expect(routeOf("PUT", "/api/v1/platforms/plt_1")).toBeUndefined()
  })
})
