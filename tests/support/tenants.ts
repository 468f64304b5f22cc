import { createClient } from "@core/sdk"
import { expect } from "vitest"

/** A user signed up through a gateway, with its organization (and so its platform) set up and active. */
export interface Tenant {
  readonly token: string
  readonly userId: string
  readonly orgId: string
  readonly platformId: string
  readonly bearer: { readonly authorization: string }
  readonly client: ReturnType<typeof createClient>
}

/** Sign a user up through the gateway at `base`, set up its organization `slug`, make it active. */
export const tenantOf = async (base: string, name: string, slug: string): Promise<Tenant> => {
  const { token, user } = await createClient({ baseUrl: base }).iam.signUp({ name, email: `${slug}@example.com`, password: "correct horse battery" })
  const setup = await fetch(`${base}/api/v1/iam/api/core/org-setup`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: `core.session_token=${token}` },
    body: JSON.stringify({ name, slug })
  })
  expect(setup.status).toBe(201)
  const { orgId, platformId } = await setup.json() as { orgId: string; platformId: string }
  const client = createClient({ baseUrl: base, token })
  await client.iam.organizations.setActive({ organizationId: orgId })
  return { token, userId: user.id, orgId, platformId, bearer: { authorization: `Bearer ${token}` }, client }
}

/** One JSON call: its status, headers and parsed body (undefined when empty). */
export const call = async (base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  // An event stream never ends: its status and headers are the answer.
  if (response.headers.get("content-type")?.startsWith("text/event-stream") === true) {
    await response.body?.cancel()
    return { status: response.status, headers: response.headers, body: undefined as any }
  }
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text === "" ? undefined : JSON.parse(text) as any }
}

/** Read until a value holds (or the deadline); the last value read (tests/support/poll.ts). */
export { until } from "./poll.js"
