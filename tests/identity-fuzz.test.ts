import { CONCRETE_PERMISSIONS, GATEWAY_PREFIXES, Iam, type RouteSpec } from "@core/contracts"
import { TestDatabase } from "@core/kernel/testing"
import { beforeAll, describe, expect, it } from "vitest"
import { logLines, useServer } from "../packages/server/test/ServerProcess.js"
import { casesOf, type FuzzCase, type Known, random, type Sender } from "./fuzz/inputs.js"

/**
 * Every identity route of the catalogue under bad input, through the real all-in-one server (its
 * gateway in front of identity), on PGlite and on PostgreSQL when `CORE_TEST_DATABASE_URL` is set:
 * no 5xx, and every 4xx in the error body of the route's protocol. The inputs come from each
 * route's declared schemas (tests/fuzz/inputs.ts), from a fixed seed.
 */
const SLOW = 240_000
const SEED = 0x11_c0de
const STATIC_KEY = "fuzz-static-key-0123456789abcdef"
const PASSWORD = "correct horse battery"
const IAM = GATEWAY_PREFIXES.identity
const CONCURRENCY = 4

/** Routes whose well-formed rest could end the caller's session or account: sent by a spare user. */
const DISPOSABLE = new Set([
  "signOut",
  "revokeSessions",
  "revokeOtherSessions",
  "deleteUser",
  "changePassword",
  "setActiveOrganization",
  "deleteOrganization",
  "leaveOrganization"
])

const ROUTES = Object.entries(Iam.IdentityRoutes as Readonly<Record<string, RouteSpec>>)
const PAGES = new Set(Object.keys(Iam.WebRoutes))

/** The error body of the protocol a route answers in: the envelope, better-auth's, OAuth's, a page. */
const isErrorBody = (route: RouteSpec, name: string, contentType: string, text: string): boolean => {
  if (PAGES.has(name)) return contentType.startsWith("text/html") && text.length > 0
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return false
  }
  if (typeof body !== "object" || body === null) return false
  const { error, code, message } = body as { error?: unknown; code?: unknown; message?: unknown }
  const envelope = typeof error === "object" && error !== null &&
    typeof (error as { code?: unknown }).code === "string" && typeof (error as { message?: unknown }).message === "string" &&
    typeof (error as { requestId?: unknown }).requestId === "string"
  if (envelope) return true
  if (route.path.startsWith("/api/auth/")) return typeof code === "string" && typeof message === "string"
  if (route.path.startsWith("/oauth/")) return typeof error === "string"
  return false
}

const post = async (base: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(`${base}${IAM}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body)
  })
  return { status: response.status, body: await response.json() as any }
}

/** The owner of an organization, its API key and a spare user, signed in on `base`. */
const signIn = async (base: string) => {
  const owner = await post(base, "/api/auth/sign-up/email", { name: "Fuzz Owner", email: "owner@fuzz.example", password: PASSWORD })
  expect(owner.status).toBe(200)
  const token = owner.body.token as string
  const setup = await post(base, "/api/core/org-setup", { name: "Fuzz", slug: "fuzz-org" }, { cookie: `core.session_token=${token}` })
  expect(setup.status).toBe(201)
  const bearer = { authorization: `Bearer ${token}` }
  expect((await post(base, "/api/auth/organization/set-active", { organizationId: setup.body.orgId }, bearer)).status).toBe(200)
  const key = await post(base, "/api/core/apikeys", { organizationId: setup.body.orgId, name: "fuzz", permissions: CONCRETE_PERMISSIONS }, bearer)
  expect(key.status).toBe(201)
  const known: Known = { orgId: setup.body.orgId, platformId: setup.body.platformId, userId: owner.body.user.id }
  let spares = 0
  let spareToken: string | undefined
  /**
   * A session of a user with nothing to lose: the last one while it is still signed in (a case may
   * have ended it), else a new sign-in (signed up again once deleted). Reusing it spares a password
   * hash (scrypt, 50–125 ms of the server's CPU) for each of the ~390 cases a spare user sends.
   */
  const spare = async (): Promise<string> => {
    const last = spareToken
    if (last !== undefined && (await fetch(`${base}${IAM}/api/core/session`, { headers: { authorization: `Bearer ${last}` } })).status === 200) {
      return last
    }
    const email = `spare${spares}@fuzz.example`
    const signedIn = await post(base, "/api/auth/sign-in/email", { email, password: PASSWORD })
    if (signedIn.status === 200) return (spareToken = signedIn.body.token as string)
    spares++
    const signedUp = await post(base, "/api/auth/sign-up/email", { name: "Spare", email: `spare${spares}@fuzz.example`, password: PASSWORD })
    expect(signedUp.status).toBe(200)
    return (spareToken = signedUp.body.token as string)
  }
  const credentials = async (sender: Sender): Promise<Record<string, string>> => {
    switch (sender) {
      case "owner":
        return bearer
      case "apikey":
        return { "x-api-key": key.body.key as string }
      case "service":
        return { authorization: `Bearer ${STATIC_KEY}` }
      case "cookie":
        return { cookie: `core.session_token=${token}` }
      case "spare":
        return { authorization: `Bearer ${await spare()}` }
      case "anonymous":
        return {}
    }
  }
  return {
    known,
    credentials,
    bearer,
    keyId: key.body.id as string,
    ownerStillSignedIn: async () => (await fetch(`${base}${IAM}/api/core/session`, { headers: bearer })).status === 200
  }
}

const send = async (base: string, method: string, path: string, body: string, headers: Record<string, string>) => {
  const response = await fetch(`${base}${IAM}${path}`, { method, headers: { "content-type": "application/json", ...headers }, body })
  return { status: response.status, body: await response.json() as any }
}

const get = async (base: string, path: string, headers: Record<string, string>) => {
  const response = await fetch(`${base}${IAM}${path}`, { headers })
  return { status: response.status, body: await response.json() as any }
}

const LONE = "Must not contain lone surrogates (invalid Unicode)"

interface Finding {
  readonly label: string
  readonly status: number
  readonly body: string
}

for (const driver of TestDatabase.drivers) {
  describe(`every identity route under bad input, through the gateway, on ${driver}`, () => {
    const server = useServer({
      CORE_STATIC_API_KEY: STATIC_KEY,
      CORE_RATE_LIMIT_PER_MINUTE: "1000000",
      CORE_RATE_LIMIT_AUTH_PER_MINUTE: "1000000"
    }, SLOW, { driver })
    let owner: Awaited<ReturnType<typeof signIn>>
    beforeAll(async () => {
      owner = await signIn(server.base)
    }, SLOW)

    it("refuses the reported inputs with 400 and the field, and stores nothing of them", async () => {
      const { base } = server
      const { known, bearer } = owner
      const service = { authorization: `Bearer ${STATIC_KEY}` }

      const role = await send(base, "POST", "/api/core/roles", JSON.stringify({ orgId: known.orgId, role: "r".repeat(4_000), permissions: [] }), bearer)
      expect([role.status, role.body.error.code, role.body.error.details.issues[0].path]).toEqual([400, "VALIDATION_ERROR", "role"])
      const platform = await send(base, "POST", "/internal/platform-status", JSON.stringify({ platformId: "p".repeat(4_000), status: "active" }), service)
      expect([platform.status, platform.body.error.details.issues[0].path]).toEqual([400, "platformId"])

      const keyName = await send(base, "POST", "/api/core/apikeys", `{"organizationId":"${known.orgId}","name":"a\\ud800"}`, bearer)
      expect([keyName.status, keyName.body.error.code, keyName.body.error.details.issues]).toEqual([400, "VALIDATION_ERROR", [{ path: "name", message: LONE }]])
      const keys = await get(base, `/api/core/apikeys?organizationId=${known.orgId}`, bearer)
      expect(keys.body.data.map((key: { id: string }) => key.id)).toEqual([owner.keyId])

      const target = await send(base, "POST", "/api/core/service-token", `{"serviceId":"billing","targetService":"\\ud800"}`, service)
      expect([target.status, target.body.error.details.issues]).toEqual([400, [{ path: "targetService", message: LONE }]])

      const metadata = await send(base, "POST", "/api/auth/organization/update", `{"organizationId":"${known.orgId}","data":{"metadata":{"a":"\\udc00"}}}`, bearer)
      expect([metadata.status, metadata.body.code, metadata.body.issues]).toEqual([400, "VALIDATION_ERROR", [{ path: "data.metadata.a", message: LONE }]])
      const created = await send(base, "POST", "/api/auth/organization/create", `{"name":"Lone","slug":"lone-org","metadata":{"\\ud800":1}}`, bearer)
      expect([created.status, created.body.issues[0].message]).toEqual([400, LONE])
      const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`
      const nested = await send(base, "POST", "/api/auth/organization/update", `{"organizationId":"${known.orgId}","data":{"metadata":{"a":${deep}}}}`, bearer)
      expect([nested.status, nested.body.issues[0].message]).toEqual([400, "Must not nest deeper than 64 levels"])
      const organization = await get(base, `/api/auth/organization/get-full-organization?organizationId=${known.orgId}`, bearer)
      expect(organization.body.metadata ?? null).toBeNull()
      const slug = await send(base, "POST", "/api/auth/organization/check-slug", JSON.stringify({ slug: "lone-org" }), bearer)
      expect(slug.body).toEqual({ status: true })

      const huge = "n".repeat(1_000_000)
      const signUp = await send(base, "POST", "/api/auth/sign-up/email", JSON.stringify({ name: huge, email: "huge@fuzz.example", password: PASSWORD }), {})
      expect([signUp.status, signUp.body.code, signUp.body.issues[0].path]).toEqual([400, "VALIDATION_ERROR", "name"])
      const signIn = await send(base, "POST", "/api/auth/sign-in/email", JSON.stringify({ email: "huge@fuzz.example", password: PASSWORD }), {})
      expect(signIn.status).toBe(401)
      const update = await send(base, "POST", "/api/auth/update-user", JSON.stringify({ name: huge }), bearer)
      expect([update.status, update.body.issues[0].path]).toEqual([400, "name"])
      const profile = await send(base, "PATCH", "/api/auth/profile", JSON.stringify({ name: huge }), bearer)
      expect([profile.status, profile.body.error.details.issues[0].path]).toEqual([400, "name"])
      const lone = await send(base, "PATCH", "/api/auth/profile", `{"name":"Ada\\ud800"}`, bearer)
      expect([lone.status, lone.body.error.details.issues]).toEqual([400, [{ path: "name", message: LONE }]])
      expect((await get(base, "/api/auth/profile", bearer)).body.name).toBe("Fuzz Owner")
    }, SLOW)

    it("answers each of over 2,000 bad inputs without a 5xx, every 4xx in its protocol's error body", async () => {
      const { known, credentials, ownerStillSignedIn } = owner
      const rng = random(SEED)
      const ordered = [...ROUTES.filter(([name]) => !DISPOSABLE.has(name)), ...ROUTES.filter(([name]) => DISPOSABLE.has(name))]
      const cases: Array<readonly [FuzzCase, RouteSpec]> = ordered.flatMap(([name, route]) =>
        casesOf(name, route, known, rng, DISPOSABLE).map((c) => [c, route] as const))
      const covered = new Set(cases.map(([c]) => c.route))
      expect([...covered].sort()).toEqual(ROUTES.map(([name]) => name).sort())
      expect(cases.length).toBeGreaterThanOrEqual(2_000)

      const statuses = new Map<number, number>()
      const started = Date.now()
      const serverErrors: Array<Finding> = []
      const badBodies: Array<Finding> = []
      let next = 0
      const worker = async () => {
        while (next < cases.length) {
          const [fuzz, route] = cases[next++]
          const response = await fetch(`${server.base}${IAM}${fuzz.path}`, {
            method: fuzz.method,
            headers: { ...fuzz.headers, ...(await credentials(fuzz.sender)) },
            body: fuzz.body,
            redirect: "manual"
          })
          const text = await response.text()
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
          const finding = { label: fuzz.label, status: response.status, body: text.slice(0, 300) }
          if (response.status >= 500) serverErrors.push(finding)
          else if (response.status >= 400 && !isErrorBody(route, fuzz.route, response.headers.get("content-type") ?? "", text)) {
            badBodies.push(finding)
          }
        }
      }
      await Promise.all(Array.from({ length: CONCURRENCY }, worker))
      const counts = [...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`).join(" ")
      console.info(`${driver}: ${cases.length} bad inputs over ${covered.size} routes in ${Date.now() - started} ms: ${counts}`)

      expect(serverErrors).toEqual([])
      expect(badBodies).toEqual([])
      expect(logLines(server.running.output.stdout).filter((line) => line.level === "error")).toEqual([])
      // The owner's session and organization came through: the cases reached the routes signed in.
      expect(await ownerStillSignedIn()).toBe(true)
    }, SLOW)
  })
}
