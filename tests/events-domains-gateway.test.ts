import { createClient } from "@core/sdk"
import { TestDatabase } from "@core/kernel/testing"
import { beforeAll, describe, expect, it } from "vitest"
import { SHARED_STATIC_KEY, useSharedServer } from "./support/sharedServer.js"
import { tarball } from "./support/tarballs.js"
import { call, type Tenant, tenantOf, until } from "./support/tenants.js"

/**
 * Each domain's changes record their events, read back through `GET /api/v1/events` at the
 * gateway of a real `core-server` (the shared one), on PGlite and PostgreSQL: billing's
 * subscription, invoices and usage alerts, identity's members, provisioning's jobs with the registry's
 * resources, and deploy's deployments — each with its exact type and `data` as the API answers
 * the object, a refused change recording none, and another organization seeing none of them.
 */
const SLOW = 180_000
const iam = (path: string) => `/api/v1/iam${path}`

type Json = Record<string, any>

for (const driver of TestDatabase.drivers) {
  describe(`events recorded by the domains through the gateway on ${driver}`, () => {
    const server = useSharedServer(SLOW, { driver })
    let ada: Tenant
    let bob: Tenant
    /** The events of `type` of the caller's organization, newest first. */
    const events = async (who: Tenant, type: string, platformId?: string): Promise<Array<Json>> => {
      const listed = await call(server.base, "GET", `/api/v1/events?type=${type}&limit=100${platformId === undefined ? "" : `&platformId=${platformId}`}`, who.bearer)
      expect(listed.status, JSON.stringify(listed.body)).toBe(200)
      return listed.body.data as Array<Json>
    }
    const eventually = (who: Tenant, type: string, count: number, platformId?: string) =>
      until(() => events(who, type, platformId), (found) => found.length >= count, 20_000)

    beforeAll(async () => {
      const suffix = `${driver}-${Date.now().toString(36)}`
      ada = await tenantOf(server.base, "Ada", `ada-told-${suffix}`)
      bob = await tenantOf(server.base, "Bob", `bob-told-${suffix}`)
    }, SLOW)

    it("billing: the platform's subscription.created; a declined upgrade records nothing, a paid one invoice.finalized, invoice.paid and subscription.updated", async () => {
      const [created] = await eventually(ada, "subscription.created", 1)
      const subscription = await call(server.base, "GET", `/api/v1/billing/api/billing/subscription?platformId=${ada.platformId}`, ada.bearer)
      expect(subscription.status).toBe(200)
      expect(created).toMatchObject({ type: "subscription.created", version: 1, organizationId: ada.orgId, platformId: ada.platformId })
      expect(created.data).toMatchObject({ id: subscription.body.id, platformId: ada.platformId, tier: "free", status: "active" })

      const upgrade = (paymentMethodId: string, idempotencyKey: string) =>
        call(server.base, "POST", "/api/v1/billing/api/billing/upgrade", ada.bearer, { planId: "growth", paymentMethodId, billingEmail: "ada@example.com", idempotencyKey })
      const declined = await upgrade("pm_card_chargeDeclined", "0c6b7a8e-1d2f-4a3b-9c4d-000000000001")
      expect(declined.status).toBe(402)
      expect(await events(ada, "subscription.updated")).toEqual([])
      expect(await events(ada, "invoice.finalized")).toEqual([])

      const paid = await upgrade("pm_card_visa", "0c6b7a8e-1d2f-4a3b-9c4d-000000000002")
      expect(paid.status).toBe(200)
      const [updated] = await eventually(ada, "subscription.updated", 1)
      expect(updated.data).toEqual(paid.body.subscription)
      const [finalized] = await events(ada, "invoice.finalized")
      expect(finalized.data).toMatchObject({ id: paid.body.invoice.id, status: "open", subscriptionId: subscription.body.id })
      const [invoicePaid] = await events(ada, "invoice.paid")
      expect(invoicePaid.data).toEqual(paid.body.invoice)
      expect(invoicePaid.data.status).toBe("paid")
      for (const type of ["subscription.updated", "invoice.finalized", "invoice.paid"]) {
        expect((await events(bob, type)).filter((event) => event.platformId === ada.platformId), type).toEqual([])
      }
    }, SLOW)

    it("metering: usage.threshold_reached once per threshold as a meter passes 80 % and 100 % of its allowance; a duplicate batch records none", async () => {
      const service = { authorization: `Bearer ${SHARED_STATIC_KEY}` }
      const ingest = (id: string, quantity: number) =>
        call(server.base, "POST", "/api/v1/billing/internal/usage/events", service, {
          events: [{ id, platformId: bob.platformId, meter: "builds", quantity, occurredAt: new Date().toISOString() }]
        })
      const batch = `told-${driver}-${Date.now().toString(36)}`
      expect((await ingest(`${batch}-1`, 85)).body).toEqual({ accepted: 1, duplicates: 0 })
      const [eighty] = await eventually(bob, "usage.threshold_reached", 1)
      expect(eighty).toMatchObject({ organizationId: bob.orgId, platformId: bob.platformId })
      expect(eighty.data).toEqual({
        platformId: bob.platformId, meter: "builds", threshold: 80, used: 85, included: 100, periodStart: expect.any(String), periodEnd: expect.any(String)
      })
      expect((await ingest(`${batch}-1`, 85)).body).toEqual({ accepted: 0, duplicates: 1 })
      expect((await ingest(`${batch}-2`, 20)).body).toEqual({ accepted: 1, duplicates: 0 })
      const told = await eventually(bob, "usage.threshold_reached", 2)
      expect(told.map((event) => [event.data.meter, event.data.threshold, event.data.used])).toEqual([["builds", 100, 105], ["builds", 80, 85]])
      expect(await events(ada, "usage.threshold_reached")).toEqual([])
    }, SLOW)

    it("identity: member.invited, member.joined and member.removed with the invitation and the membership; inviting a member again records none", async () => {
      const email = `cleo-${driver}-${Date.now().toString(36)}@example.com`
      const invited = await call(server.base, "POST", iam(`/api/core/organizations/${ada.orgId}/invitations`), ada.bearer, { email, role: "member" })
      expect(invited.status).toBe(201)
      const [told] = await eventually(ada, "member.invited", 1)
      expect(told).toMatchObject({ organizationId: ada.orgId, platformId: null, data: invited.body })

      const cleo = await createClient({ baseUrl: server.base }).iam.signUp({ name: "Cleo", email, password: "correct horse battery" })
      const accepted = await call(server.base, "POST", iam("/api/auth/organization/accept-invitation"), { authorization: `Bearer ${cleo.token}` }, { invitationId: invited.body.id })
      expect(accepted.status).toBe(200)
      const [joined] = await eventually(ada, "member.joined", 1)
      expect(joined.data).toEqual({
        id: accepted.body.member.id,
        organizationId: ada.orgId,
        userId: cleo.user.id,
        role: "member",
        createdAt: expect.any(String),
        user: { id: cleo.user.id, name: "Cleo", email, image: null }
      })

      const again = await call(server.base, "POST", iam(`/api/core/organizations/${ada.orgId}/invitations`), ada.bearer, { email, role: "member" })
      expect(again.status).toBe(409)
      expect(await events(ada, "member.invited")).toHaveLength(1)

      const removed = await call(server.base, "POST", iam("/api/auth/organization/remove-member"), ada.bearer, { memberIdOrEmail: email, organizationId: ada.orgId })
      expect(removed.status).toBe(200)
      const [gone] = await eventually(ada, "member.removed", 1)
      expect(gone.data).toEqual({ id: accepted.body.member.id, organizationId: ada.orgId, userId: cleo.user.id, role: "member" })
      expect(await events(bob, "member.removed")).toEqual([])
    }, SLOW)

    it("provisioning: app.create records resource.provisioned and job.succeeded, deprovisioning resource.removed", async () => {
      const created = await call(server.base, "POST", "/api/v1/provisioning/app/create", ada.bearer, { platformId: ada.platformId, stackId: "web", appName: "shop", appType: "app" })
      expect(created.status).toBe(202)
      const job = await until(() => call(server.base, "GET", `/api/v1/provisioning/jobs/${created.body.jobId}`, ada.bearer), (r) => r.body.status === "COMPLETED", 20_000)
      const succeeded = await eventually(ada, "job.succeeded", 1, ada.platformId)
      expect(succeeded.find((event) => event.data.jobId === created.body.jobId)?.data).toEqual(job.body)
      // Only this job's resource: the platform's own (its setup's provisioning) may be told too.
      const provisioned = (await eventually(ada, "resource.provisioned", 1, ada.platformId)).find((event) => event.data.provisionJobId === created.body.jobId)!
      const resource = await call(server.base, "GET", `/api/v1/platforms/${ada.platformId}/resources/${provisioned.data.id}`, ada.bearer)
      expect(resource.status).toBe(200)
      expect(provisioned.data).toEqual(resource.body)
      expect(provisioned.data).toMatchObject({ resourceType: "pages", status: "active", provisionJobId: created.body.jobId })

      const removal = await call(server.base, "POST", "/api/v1/provisioning/platform/deprovision", ada.bearer, { platformId: ada.platformId })
      expect(removal.status).toBe(202)
      const removed = await until(() => events(ada, "resource.removed", ada.platformId), (found) => found.some((event) => event.data.id === provisioned.data.id), 20_000)
      expect(removed.find((event) => event.data.id === provisioned.data.id)?.data).toMatchObject({ id: provisioned.data.id, status: "deleted", deletedAt: expect.any(String) })
      expect(await events(bob, "resource.provisioned")).toEqual([])
    }, SLOW)

    it("deploy: an upload's deployment.ready and a rollback's deployment.rolled_back; a refused rollback records none", async () => {
      const repo = await call(server.base, "POST", "/api/v1/cli/platforms", bob.bearer, { platformId: bob.platformId, displayName: "Bob's site", planTier: "starter" })
      expect(repo.status).toBe(200)
      const deploy = async (html: string) => {
        const response = await fetch(`${server.base}/api/v1/cli/platforms/${bob.platformId}/deploy`, {
          method: "POST",
          headers: { "content-type": "application/gzip", ...bob.bearer },
          body: new Uint8Array(await tarball([{ name: "index.html", content: html }]))
        })
        expect(response.status).toBe(202)
        const { deploymentId } = await response.json() as { deploymentId: string }
        return until(() => call(server.base, "GET", `/api/v1/cli/platforms/${bob.platformId}/deployments/${deploymentId}`, bob.bearer), (r) => r.body?.status === "success", 20_000)
      }
      const first = await deploy("<h1>one</h1>")
      const [ready] = await eventually(bob, "deployment.ready", 1)
      expect(ready).toMatchObject({ organizationId: bob.orgId, platformId: bob.platformId, data: first.body })
      expect(ready.data.live).toBe(true)
      const second = await deploy("<h1>two</h1>")
      await eventually(bob, "deployment.ready", 2)

      const refused = await call(server.base, "POST", `/api/v1/cli/platforms/${bob.platformId}/deployments/dep_00000000000000000000000000/rollback`, bob.bearer)
      expect(refused.status).toBe(404)
      expect(await events(bob, "deployment.rolled_back")).toEqual([])
      const rolled = await call(server.base, "POST", `/api/v1/cli/platforms/${bob.platformId}/deployments/${first.body.deploymentId}/rollback`, bob.bearer)
      expect(rolled.status).toBe(200)
      const [back] = await eventually(bob, "deployment.rolled_back", 1)
      expect(back.data).toEqual(rolled.body)
      expect(back.data).toMatchObject({ deploymentId: first.body.deploymentId, live: true })
      expect(second.body.deploymentId).not.toBe(first.body.deploymentId)
      expect(await events(ada, "deployment.ready")).toEqual([])
    }, SLOW)
  })
}
