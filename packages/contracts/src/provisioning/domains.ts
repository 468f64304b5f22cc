import { z } from "zod"
import { BoundedId } from "../Bounds.js"
import { naming } from "../PathRecords.js"
import { defineRoutes } from "../Routes.js"

/**
 * A custom domain the `domain.add` job added (decision 0295): `status` is the domain's own
 * (`pending → active | failed`, `deleted`), `verificationStatus` the edge's proof of the hostname
 * (`pending`, `verified`, `failed`).
 */
export const DomainRecord = z.object({
  id: z.string(),
  platformId: z.string(),
  hostname: z.string(),
  targetDnsRecordId: z.string(),
  target: z.string().nullable(),
  edgeId: z.string().nullable(),
  status: z.enum(["pending", "active", "failed", "deleted"]),
  verificationStatus: z.enum(["pending", "verified", "failed"]),
  jobId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  deletedAt: z.string().nullable()
})
export type DomainRecord = z.infer<typeof DomainRecord>

/** `GET /api/v1/provision/domains?platformId=`. */
export const DomainListQuery = z.object({ platformId: BoundedId })
export type DomainListQuery = z.input<typeof DomainListQuery>

/** A platform's live domains, oldest first. */
export const DomainList = z.object({ data: z.array(DomainRecord) })
export type DomainList = z.infer<typeof DomainList>

/** The path of one domain. */
export const DomainParams = z.object({ id: naming(BoundedId, "Domain not found") })

const tags = ["provisioning: domains"]

/** The custom domains of `domain/add`, listed and removed. */
export const DomainRoutes = defineRoutes({
  listDomains: {
    method: "GET",
    path: "/api/v1/provision/domains",
    summary: "A platform's custom domains with their verification status (another tenant's platform: 404)",
    description: "The custom hostnames added to a platform (`domain.add` jobs), each with its target DNS record, its status on the edge and its verification status (pending until the hostname's DNS points at the edge). Needs `platforms:read`.",
    auth: "caller",
    permission: "platforms:read",
    tenant: "organization",
    request: { query: DomainListQuery },
    responses: { 200: DomainList, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  removeDomain: {
    method: "DELETE",
    path: "/api/v1/provision/domains/{id}",
    summary: "Remove a custom domain: its hostname stops routing on the edge; answers it `deleted` (another tenant's: 404)",
    description: "Removes a custom hostname from the edge provider and marks it `deleted`: requests for it stop reaching the platform. Needs `platforms:manage`; another tenant's domain answers 404.",
    auth: "caller",
    permission: "platforms:manage",
    tenant: "organization",
    request: { params: DomainParams },
    responses: { 200: DomainRecord, 400: null, 401: null, 403: null, 404: null },
    tags
  }
})
