import { TestDatabase } from "@core/kernel/testing"
import * as Http from "node:http"
import { describe, expect, it } from "vitest"
import { useServer } from "../packages/server/test/ServerProcess.js"
import { call, until } from "./support/tenants.js"

/**
 * Onboarding through the gateway of the real all-in-one server (`npm start`), on PGlite and on
 * PostgreSQL: the static key starts a flow from a stack template; the platform and its default
 * tenant exist at once, the `onboard` job runs in the server's worker and records the stack's
 * resources; the flow's steps and progress are read until it completes. Bad templates and taken
 * slugs are refused before anything is made; a tenant reads only its own platform's flows.
 */
const SLOW = 180_000
const STATIC_KEY = "onboarding-static-key-0123456789abcdef"
const SERVICE = { authorization: `Bearer ${STATIC_KEY}` }

const definition = {
  resources: [
    { type: "pages", name: "site", environment: "prod", config: {} },
    { type: "sql_db", name: "main", environment: "prod", config: { size: "small" } },
    { type: "kv", name: "cache", environment: "dev", config: {} }
  ]
}

for (const driver of TestDatabase.drivers) {
  describe(`onboarding through the gateway, on ${driver}`, () => {
    const server = useServer({ CORE_STATIC_API_KEY: STATIC_KEY }, SLOW, { driver })

    it("creates the platform at once, runs the onboard job, and records the stack's resources", async () => {
      const { base } = server
      expect((await call(base, "POST", "/api/v1/stacks", SERVICE, { name: "shop", displayName: "Shop", description: "A shop" })).status).toBe(201)
      for (const version of ["1.0.0", "1.1.0"]) {
        const published = await call(base, "POST", "/api/v1/stacks/shop/versions", SERVICE, { version, stackDefinition: definition, coreSdkVersion: "0.1.0" })
        expect(published.status).toBe(201)
      }

      const started = await call(base, "POST", "/api/v1/onboarding", SERVICE, {
        platformName: "Acme Shop", slug: "acme-shop", stackTemplateId: "shop", tier: "growth", billingEmail: "bills@acme.example"
      })
      expect(started.status).toBe(202)
      expect(started.body).toMatchObject({
        platformName: "Acme Shop", slug: "acme-shop", stackTemplateId: "shop", tier: "growth", billingEmail: "bills@acme.example",
        userId: null, organizationId: null, status: expect.stringMatching(/^(pending|running|completed)$/), provisionJobId: expect.stringMatching(/^job_/)
      })
      expect(started.headers.get("location")).toBe(`/api/v1/onboarding/${started.body.id}`)
      const platform = await call(base, "GET", `/api/v1/platforms/${started.body.platformId}`, SERVICE)
      expect(platform.body).toMatchObject({ name: "Acme Shop", slug: "acme-shop", tier: "growth", status: "active" })

      const flow = await until(() => call(base, "GET", `/api/v1/onboarding/${started.body.id}`, SERVICE), (r) => r.body.status === "completed" || r.body.status === "failed", 15_000)
      expect(flow.body).toMatchObject({ status: "completed", jobStatus: "COMPLETED", progress: 1, error: null, completedAt: expect.any(String) })
      // The billing email told to billing (decision 0578); each recorded resource is then made on the
      // local edge in a step of its own (decision 0297).
      expect(flow.body.steps.map((step: { name: string; status: string }) => [step.name, step.status])).toEqual([
        ["platform", "completed"], ["billing-contact", "completed"], ["stack", "completed"],
        ["create:acme-shop-prod-site", "completed"], ["create:acme-shop-prod-main", "completed"], ["create:acme-shop-dev-cache", "completed"]
      ])
      expect(flow.body.result).toMatchObject({ platformId: started.body.platformId, stackVersion: "1.1.0", resourceIds: expect.any(Array) })

      const job = await call(base, "GET", `/api/v1/provisioning/jobs/${started.body.provisionJobId}`, SERVICE)
      expect(job.body).toMatchObject({ type: "onboard", status: "COMPLETED", platformId: started.body.platformId })

      const listed = await call(base, "GET", `/api/v1/platforms/${started.body.platformId}/resources`, SERVICE)
      expect(listed.status).toBe(200)
      expect(listed.body.data.map((r: any) => [r.resourceType, r.serviceName, r.environment, r.edgeName, r.entityId]).sort()).toEqual([
        ["kv", "cache", "dev", "acme-shop-dev-cache", flow.body.result.entityId],
        ["pages", "site", "prod", "acme-shop-prod-site", flow.body.result.entityId],
        ["sql_db", "main", "prod", "acme-shop-prod-main", flow.body.result.entityId]
      ])
      expect([...flow.body.result.resourceIds].sort()).toEqual(listed.body.data.map((r: any) => r.id).sort())
      expect(listed.body.data.map((r: any) => r.status)).toEqual(["active", "active", "active"])

      // The pages resource is served by the server at <project>.localhost (decision 0296).
      const port = new URL(base).port
      const page = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = Http.request({ host: "127.0.0.1", port, path: "/", headers: { host: `acme-shop-prod-site.localhost:${port}` } }, (response) => {
          let body = ""
          response.on("data", (chunk) => (body += chunk))
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body }))
        })
        request.on("error", reject)
        request.end()
      })
      expect(page.status).toBe(200)
      expect(page.body).toContain("acme-shop-prod-site")
    }, SLOW)

    it("onboards without a template; refuses an unknown template, one without a version, a taken slug and bad input, making nothing", async () => {
      const { base } = server
      const bare = await call(base, "POST", "/api/v1/onboarding", SERVICE, { platformName: "Bare", slug: "bare" })
      expect(bare.status).toBe(202)
      expect(bare.body).toMatchObject({ tier: "starter", stackTemplateId: null, billingEmail: null })
      const done = await until(() => call(base, "GET", `/api/v1/onboarding/${bare.body.id}`, SERVICE), (r) => r.body.status === "completed", 15_000)
      expect(done.body.steps.map((step: { name: string }) => step.name)).toEqual(["platform"])

      expect((await call(base, "POST", "/api/v1/stacks", SERVICE, { name: "empty", displayName: "Empty", description: "No versions" })).status).toBe(201)
      const unknown = await call(base, "POST", "/api/v1/onboarding", SERVICE, { platformName: "X", slug: "x-unknown", stackTemplateId: "nope" })
      expect([unknown.status, unknown.body.error.code, unknown.body.error.message]).toEqual([404, "NOT_FOUND", "Stack template not found"])
      const empty = await call(base, "POST", "/api/v1/onboarding", SERVICE, { platformName: "X", slug: "x-empty", stackTemplateId: "empty" })
      expect([empty.status, empty.body.error.code]).toEqual([409, "CONFLICT"])
      expect(empty.body.error.message).toBe("The stack template empty has no published version")
      const taken = await call(base, "POST", "/api/v1/onboarding", SERVICE, { platformName: "Again", slug: "bare" })
      expect([taken.status, taken.body.error.code]).toEqual([409, "CONFLICT"])
      const bad = await call(base, "POST", "/api/v1/onboarding", SERVICE, { platformName: "", slug: "Not A Slug", billingEmail: "nope", tier: "huge" })
      expect([bad.status, bad.body.error.code]).toEqual([400, "VALIDATION_ERROR"])
      expect(bad.body.error.details.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(["billingEmail", "platformName", "slug", "tier"])
      const all = await call(base, "GET", "/api/v1/platforms?limit=100", SERVICE)
      expect(all.body.data.map((p: { slug: string }) => p.slug)).not.toEqual(expect.arrayContaining(["x-unknown"]))
      expect(all.body.data.filter((p: { slug: string }) => p.slug.startsWith("x-"))).toEqual([])
      const missing = await call(base, "GET", "/api/v1/onboarding/onb_01JDQ3V6X4TQ7K9ZC2M8N5P0RS", SERVICE)
      expect([missing.status, missing.body.error.code]).toEqual([404, "NOT_FOUND"])
    }, SLOW)

    it("lets only operators start a flow, and a tenant read only its own platform's flows", async () => {
      const { base } = server
      const signUp = await call(base, "POST", "/api/v1/iam/api/auth/sign-up/email", {}, { name: "Ada", email: "ada@onboarding.example", password: "correct horse battery" })
      const token = signUp.body.token as string
      const setup = await call(base, "POST", "/api/v1/iam/api/core/org-setup", { cookie: `core.session_token=${token}` }, { name: "Ada", slug: "ada-org" })
      expect(setup.status).toBe(201)
      const bearer = { authorization: `Bearer ${token}` }
      await call(base, "POST", "/api/v1/iam/api/auth/organization/set-active", bearer, { organizationId: setup.body.orgId })

      const refused = await call(base, "POST", "/api/v1/onboarding", bearer, { platformName: "Mine", slug: "mine" })
      expect([refused.status, refused.body.error.code]).toEqual([403, "FORBIDDEN"])
      expect((await call(base, "POST", "/api/v1/onboarding", {}, { platformName: "Mine", slug: "mine" })).status).toBe(401)
      expect((await call(base, "GET", "/api/v1/platforms?slug=mine", SERVICE)).body.data).toEqual([])

      // A flow that names a user makes its platform the platform of a new organization of theirs,
      // owned by them (decision 0576): they read the flow and the platform there; another tenant cannot.
      const theirs = await call(base, "POST", "/api/v1/onboarding", SERVICE, { platformName: "Theirs", slug: "theirs", userId: signUp.body.user.id })
      expect(theirs.status).toBe(202)
      expect(theirs.body).toMatchObject({ userId: signUp.body.user.id, organizationId: expect.stringMatching(/^org_/) })
      const platform = await call(base, "GET", `/api/v1/platforms/${theirs.body.platformId}`, SERVICE)
      expect(platform.body).toMatchObject({ organizationId: theirs.body.organizationId, ownerUserId: signUp.body.user.id, tier: "starter" })
      const hidden = await call(base, "GET", `/api/v1/onboarding/${theirs.body.id}`, bearer)
      expect([hidden.status, hidden.body.error.code, hidden.body.error.message]).toEqual([404, "NOT_FOUND", "Onboarding flow not found"])
      expect((await call(base, "GET", `/api/v1/platforms/${theirs.body.platformId}`, bearer)).status).toBe(404)
      await call(base, "POST", "/api/v1/iam/api/auth/organization/set-active", bearer, { organizationId: theirs.body.organizationId })
      expect((await call(base, "GET", `/api/v1/onboarding/${theirs.body.id}`, bearer)).status).toBe(200)
      expect((await call(base, "GET", `/api/v1/platforms/${theirs.body.platformId}`, bearer)).status).toBe(200)
    }, SLOW)
  })
}
