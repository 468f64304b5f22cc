import * as Contracts from "@core/contracts"
import { CONCRETE_PERMISSIONS, type RouteSpec } from "@core/contracts"
import { ROUTE_REFS, type RouteRef } from "@core/contracts/routes"
import { TestDatabase } from "@core/kernel/testing"
import { beforeAll, describe, expect, it } from "vitest"
import { call, type Tenant, tenantOf } from "./support/tenants.js"
import { useSharedServer } from "./support/sharedServer.js"

/**
 * Every route of the catalogue that declares a `permission` demands exactly that one:
 * through the real server's gateway, an API key holding only that permission is not refused (no
 * 403), and a key holding every other permission of the catalogue is refused with 403 `FORBIDDEN`
 * naming it. Routes that change or remove the platform or the organization run on a tenant of
 * their own, so the walk never takes its own ground away.
 */
const SLOW = 300_000
const ID = "01JDQ3V6X4TQ7K9ZC2M8N5P0RS"

/**
 * Routes whose declared permission is not all they demand, each with its reason: the holder of the
 * permission alone is refused on purpose (decision 0596).
 */
const MORE_THAN_THE_PERMISSION: Readonly<Record<string, string>> = {
  "PlatformRoutes.deletePlatform": "soft-deleting a platform is the operators' (decision 0227)",
  "PlatformRoutes.suspendPlatform": "suspending is the operators' (an owner must not suspend and lift it)",
  "PlatformRoutes.restorePlatform": "restoring is the operators' (an owner must not lift its own suspension)",
  "PlatformRoutes.hardDeletePlatform": "hard deletion is the operators'"
}

/**
 * Routes where the key without the permission meets something else first, with that answer: a
 * record addressed by id is looked up before the permission (another tenant's, or none, answers
 * 404 — never 403), and the walk creates none.
 */
const UNREACHED: Readonly<Record<string, string>> = {
  "AuthorizationRoutes.deleteGrant": "404 Grant not found",
  "AuthorizationRoutes.revokeApiKey": "404 API key not found",
  "BillingRoutes.cancelProviderSubscription": "404 Subscription not found",
  "BillingRoutes.getCustomer": "404 Customer not found",
  "BillingRoutes.getDefaultPaymentMethod": "404 Customer not found",
  "BillingRoutes.getProviderSubscription": "404 Subscription not found",
  "BillingRoutes.listCustomerPaymentMethods": "404 Customer not found",
  "BillingRoutes.listCustomerSubscriptions": "404 Customer not found",
  "BillingRoutes.updateCustomer": "404 Customer not found",
  "BillingRoutes.updateProviderSubscription": "404 Subscription not found",
  "LookupRoutes.lookupResource": "404 Resource not found",
  "ResourceFamilyRoutes.lookupResource": "404 Resource not found",
  "OnboardingRoutes.getOnboarding": "404 Onboarding flow not found",
  "OrganizationRoutes.cancelInvitation": "404 {\"code\":\"INVITATION_NOT_FOUND\",\"message\":\"Invitation not found\"}",
  "OrganizationRoutes.revokeOrganizationInvitation": "404 Invitation not found",
  "ProvisioningRoutes.getJob": "404 Job not found",
  "ProvisioningRoutes.streamJobEvents": "404 Job not found",
  "ProvisioningRoutes.removeDomain": "404 Domain not found",
  // Bodies the walk does not build yet (their permission is checked after the body is valid).
  "BillingRoutes.createProviderSubscription": "400 Invalid request body",
  "BillingRoutes.upgrade": "400 Invalid request body",
  "ProvisioningRoutes.activateFeatureJob": "400 Invalid request body",
  "ProvisioningRoutes.activateStack": "400 Invalid request body",
  "ProvisioningRoutes.deactivateStack": "400 Invalid request body",
  "ProvisioningRoutes.onboard": "400 Invalid request body"
}

/**
 * Routes refused with 403 in words of their own, not naming the permission: the invitation routes
 * by slug and the organization by slug answer better-auth's organization plugin's refusal (its permission check, not the kernel's).
 */
const NOT_NAMED: Readonly<Record<string, string>> = {
  "OrganizationRoutes.createOrganizationInvitation": "You are not allowed to invite users to this organization",
  "OrganizationRoutes.listOrganizationInvitations": "You are not allowed to list invitations for this organization",
  "OrganizationRoutes.getOrganizationBySlug": "You are not allowed to read this organization"
}

/** Routes that would take the tenant's ground away: each runs on a tenant of its own. */
const destructive = (ref: RouteRef): boolean =>
  ref.method === "DELETE" && /\/platforms\/\{platformId\}$|organization\/delete/.test(ref.path) ||
  /\/(cancel|delete|suspend)$/.test(ref.path) || /organization\/delete/.test(ref.path)

interface Walked {
  readonly name: string
  readonly ref: RouteRef
  readonly spec: RouteSpec
  readonly permission: string
}

const walked: ReadonlyArray<Walked> = Object.entries(ROUTE_REFS).flatMap(([namespace, catalogues]) =>
  Object.entries(catalogues).flatMap(([catalogue, refs]) =>
    Object.entries(refs as Readonly<Record<string, RouteRef>>).flatMap(([route, ref]) => {
      const spec = (Contracts as unknown as Record<string, Record<string, Record<string, RouteSpec>>>)[namespace]![catalogue]![route]!
      return spec.permission === undefined ? [] : [{ name: `${catalogue}.${route}`, ref, spec, permission: spec.permission }]
    })
  )
)

/** Each walked tenant's organization slug. */
const slugs = new WeakMap<Tenant, string>()

/** A value for a path parameter: the tenant's own platform and organization, else a well-formed id. */
const paramValue = (tenant: Tenant, name: string): string => {
  if (name === "platformId") return tenant.platformId
  if (name === "slug") return slugs.get(tenant)!
  if (name === "orgId" || name === "organizationId") return tenant.orgId
  const prefix: Record<string, string> = {
    entityId: "ent", resourceId: "res", recordId: "dns", activationId: "act", jobId: "job", id: "grt", domainId: "dom", onboardingId: "onb"
  }
  return prefix[name] === undefined ? "walk" : `${prefix[name]}_${ID}`
}

const urlOf = (tenant: Tenant, route: Walked): string => {
  const path = route.ref.path.replace(/\{([^}]+)\}|:([A-Za-z_]+)/g, (_, a: string | undefined, b: string | undefined) => paramValue(tenant, (a ?? b)!))
  const query = new URLSearchParams({
    organizationId: tenant.orgId, orgId: tenant.orgId, platformId: tenant.platformId, edgeName: "walk", tier: "starter",
    from: "2026-01-01", to: "2026-01-02"
  })
  return `${route.ref.prefix}${path}?${query}`
}

/** A well-formed body for the routes that take one (else `{}`), so the permission is what decides. */
const bodyOf = (base: string, tenant: Tenant, route: Walked, n: number): unknown => {
  if (route.ref.method === "GET" || route.ref.method === "DELETE") return undefined
  const organizationId = tenant.orgId
  const samples: Record<string, unknown> = {
    "OrganizationRoutes.updateOrganization": { organizationId, data: { name: "Walked" } },
    "OrganizationRoutes.deleteOrganization": { organizationId },
    "OrganizationRoutes.removeMember": { organizationId, memberIdOrEmail: "nobody@example.com" },
    "OrganizationRoutes.updateMemberRole": { organizationId, memberId: "walk", role: "member" },
    "OrganizationRoutes.inviteMember": { organizationId, email: `invitee-${n}@example.com`, role: "member" },
    "OrganizationRoutes.cancelInvitation": { invitationId: "walk" },
    "OrganizationRoutes.createOrganizationInvitation": { email: `invitee-${n}@example.com`, role: "member" },
    "AuthorizationRoutes.upsertRoleMapping": { orgId: organizationId, role: `walker${n}`, permissions: [] },
    "AuthorizationRoutes.createGrant": { userId: tenant.userId, orgId: organizationId, permission: "members:manage", granted: true, grantedBy: tenant.userId },
    "AuthorizationRoutes.createApiKey": { organizationId, permissions: [] },
    "EntityRoutes.createEntity": { name: "Walked", slug: `walked-${n}`, type: "tenant" },
    "EntityRoutes.updateEntity": { name: "Walked" },
    "ResourceRoutes.createResource": resource(n),
    "ResourceFamilyRoutes.createResource": resource(n),
    "ResourceRoutes.updateResource": { serviceName: "api" },
    "ResourceFamilyRoutes.updateResource": { serviceName: "api" },
    "DnsRecordRoutes.createDnsRecord": { type: "TXT", name: `walk${n}`, content: "walked" },
    "SecretRoutes.setResourceSecret": { value: "walked" },
    "FeatureRoutes.activateFeature": { featureId: "walk", version: "1.0.0", environment: "dev" },
    "FeatureRoutes.deactivateFeature": { featureId: "walk", environment: "dev" },
    "BillingRoutes.changeTier": { tier: "starter" },
    "BillingRoutes.createPortalSession": { returnUrl: `${base}/` },
    "ProvisioningRoutes.provisionPlatform": { platformId: tenant.platformId, planTier: "free", billingEmail: "walk@example.com" },
    "ProvisioningRoutes.addDomain": { platformId: tenant.platformId, customHostname: `walk${n}.example.com`, targetDnsRecordId: `dns_${ID}` },
    "ProvisioningRoutes.createApp": { platformId: tenant.platformId, stackId: `stk_${ID}`, appName: `walk${n}`, appType: "app" },
    "ProvisioningRoutes.deprovisionPlatform": { platformId: tenant.platformId },
    "ProvisioningRoutes.activateFeatureJob": { platformId: tenant.platformId, entityId: `ent_${ID}`, featureId: "walk", version: "1.0.0", environment: "dev" },
    "ProvisioningRoutes.deactivateFeatureJob": { platformId: tenant.platformId, entityId: `ent_${ID}`, featureId: "walk", environment: "dev" },
    "WebhookRoutes.createWebhookEndpoint": { url: "https://93.184.215.14/walk" },
    "WebhookRoutes.replayWebhookEvents": { since: "2026-01-01T00:00:00Z" }
  }
  return samples[route.name] ?? {}
}

const resource = (n: number) => ({ stackId: `stk_${ID}`, resourceType: "worker", serviceName: "api", environment: "dev", edgeName: `walk-${n}` })

const keyFor = async (base: string, tenant: Tenant, permissions: ReadonlyArray<string>): Promise<string> => {
  const created = await call(base, "POST", "/api/v1/iam/api/core/apikeys", tenant.bearer, { organizationId: tenant.orgId, permissions })
  expect(created.status).toBe(201)
  return created.body.key as string
}

/** The answer of the key without the permission: a 403 naming it, or what stopped the walk before the check. */
const refusal = (status: number, body: any): string =>
  status === 403 ? (typeof body?.error?.message === "string" ? body.error.message : JSON.stringify(body)) : `${status} ${body?.error?.message ?? JSON.stringify(body)}`

for (const driver of TestDatabase.drivers) {
  describe(`each route demands the permission the catalogue declares, on ${driver}`, () => {
    const server = useSharedServer(SLOW, { driver })
    let shared: Tenant
    let count = 0
    const freshTenant = async () => {
      const slug = `walk-${driver}-${count++}`
      const tenant = await tenantOf(server.base, "Walker", slug)
      slugs.set(tenant, slug)
      return tenant
    }

    beforeAll(async () => {
      shared = await freshTenant()
    }, SLOW)

    it("a key with exactly the route's permission is not refused; a key with every other one is refused naming it", async () => {
      expect(walked.length).toBeGreaterThan(100)
      const wrong: Array<unknown> = []
      const unreached: Record<string, string> = {}
      const unnamed: Record<string, string> = {}
      for (const [n, route] of walked.entries()) {
        const tenant = destructive(route.ref) ? await freshTenant() : shared
        const without = await keyFor(server.base, tenant, CONCRETE_PERMISSIONS.filter((permission) => permission !== route.permission))
        const holder = await keyFor(server.base, tenant, [route.permission])
        const send = (key: string) => call(server.base, route.ref.method, urlOf(tenant, route), { "x-api-key": key }, bodyOf(server.base, tenant, route, n))
        const refused = await send(without)
        const allowed = await send(holder)
        const pluginRoute = route.ref.path.startsWith("/api/auth/")
        const named = pluginRoute || MORE_THAN_THE_PERMISSION[route.name] !== undefined ||
          refused.body?.error?.code === "FORBIDDEN" && String(refused.body.error.message).startsWith(`Missing permission ${route.permission}: `)
        if (refused.status === 403 && !named) unnamed[route.name] = refusal(refused.status, refused.body)
        if (refused.status !== 403) unreached[route.name] = refusal(refused.status, refused.body)
        if (allowed.status === 403 && MORE_THAN_THE_PERMISSION[route.name] === undefined) {
          wrong.push([route.name, `refused to a key holding ${route.permission}`, refusal(allowed.status, allowed.body)])
        }
      }
      expect(wrong).toEqual([])
      expect(unnamed).toEqual(NOT_NAMED)
      expect(unreached).toEqual(UNREACHED)
    }, SLOW)
  })
}
