import { z } from "zod"
import { BoundedId, NAME_MAX_LENGTH, TEXT_MAX_LENGTH } from "../Bounds.js"
import { EntityId, idSchema, PlatformId, ResourceId } from "../Ids.js"
import { cursorParam, limitParam, page } from "../Pagination.js"
import { pathInput } from "../PathRecords.js"
import { defineRoutes } from "../Routes.js"

/**
 * Registry resources (docs/registry.md), their DNS records and
 * their secret records. The resource routes exist twice, under `/api/v1/platforms/{platformId}`
 * (`ResourceRoutes`) and under `/api/v1/resources/platforms/{platformId}` (`ResourceFamilyRoutes`),
 * with the same schemas and the same answers; the lookup by edge name at `/api/v1/lookup`
 * (`LookupRoutes`) and `/api/v1/resources/lookup`. Decisions 0240–0247.
 */

/** What a resource is on the edge. */
export const ResourceType = z.enum(["worker", "pages", "sql_db", "object_store", "kv", "queue"])
export type ResourceType = z.infer<typeof ResourceType>

/** The environment a resource serves. */
export const ResourceEnvironment = z.enum(["dev", "stg", "prod"])
export type ResourceEnvironment = z.infer<typeof ResourceEnvironment>

/** A resource's status; provisioning moves it `pending → provisioning → active | failed`. */
export const ResourceStatus = z.enum(["pending", "provisioning", "active", "failed", "deleted"])
export type ResourceStatus = z.infer<typeof ResourceStatus>

/** A URI of at most 4 KiB (a resource's `edgeUrl`). */
export const EdgeUrl = z.url().max(TEXT_MAX_LENGTH)

/** A resource's name on the edge: unique among live resources (decision 0241). */
export const EdgeName = z.string().min(1).max(NAME_MAX_LENGTH)

/**
 * A resource as the registry answers it (ResourceRecord). `stackId` is kept as given
 * at creation (decision 0240); fields the edge has not filled yet are `null`.
 */
export const ResourceRecord = z.object({
  id: z.string(),
  platformId: z.string(),
  entityId: z.string(),
  stackId: z.string(),
  resourceType: ResourceType,
  serviceName: z.string(),
  environment: ResourceEnvironment,
  edgeName: z.string(),
  edgeId: z.string().nullable(),
  edgeUrl: z.string().nullable(),
  status: ResourceStatus,
  provisionJobId: z.string().nullable(),
  config: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  updatedAt: z.string(),
  deletedAt: z.string().nullable()
})
export type ResourceRecord = z.infer<typeof ResourceRecord>

/** `POST .../entities/{entityId}/resources`: every string at least one character. */
export const CreateResourceRequest = z.object({
  stackId: BoundedId,
  resourceType: ResourceType,
  serviceName: z.string().min(1).max(NAME_MAX_LENGTH),
  environment: ResourceEnvironment,
  edgeName: EdgeName,
  edgeUrl: EdgeUrl.optional()
})
export type CreateResourceRequest = z.input<typeof CreateResourceRequest>

/** `PATCH .../resources/{resourceId}`: any seed status on a live resource (an operator's repair tool), and `edgeUrl`. */
export const UpdateResourceRequest = z.object({
  status: ResourceStatus.optional(),
  edgeUrl: EdgeUrl.optional()
})
export type UpdateResourceRequest = z.input<typeof UpdateResourceRequest>

/** The path of a platform's resources. */
export const ResourcesParams = z.object({ platformId: PlatformId })
/** The path of an entity's resources. */
export const EntityResourcesParams = z.object({ platformId: PlatformId, entityId: EntityId })
/** The path of one resource. */
export const ResourceParams = z.object({ platformId: PlatformId, resourceId: ResourceId })

/**
 * `GET .../resources`: `cursor`, `limit` (default 25, 1 to 100) and the filters `resourceType`,
 * `environment`, `status`, `entityId`. Deleted resources only with `status=deleted`.
 */
export const ListResourcesQuery = z.object({
  cursor: cursorParam,
  limit: limitParam(),
  resourceType: ResourceType.optional(),
  environment: ResourceEnvironment.optional(),
  status: ResourceStatus.optional(),
  entityId: EntityId.optional()
})
export type ListResourcesQuery = z.output<typeof ListResourcesQuery>

/** `GET .../entities/{entityId}/resources`: the same, the entity given by the path. */
export const ListEntityResourcesQuery = ListResourcesQuery.omit({ entityId: true })
export type ListEntityResourcesQuery = z.output<typeof ListEntityResourcesQuery>

/** `GET /api/v1/lookup?edgeName=` (and `/api/v1/resources/lookup`): the live resource of that edge name. */
export const LookupQuery = z.object({ edgeName: EdgeName })

/** A page of resources. */
export const ResourcePage = page(ResourceRecord)
export type ResourcePage = z.infer<typeof ResourcePage>

const Success = z.object({ success: z.literal(true) })

// ---------------------------------------------------------------------------------------------
// DNS records (decision 0244)

/** The DNS record types the registry keeps (those the edge provider's API takes). */
export const DnsRecordType = z.enum(["A", "AAAA", "CNAME", "TXT", "MX", "NS", "SRV", "CAA"])
export type DnsRecordType = z.infer<typeof DnsRecordType>

/** A DNS record id (`dns_…`): what provisioning's domain add takes as `targetDnsRecordId`. */
export const DnsRecordId = idSchema("dns")

/** A DNS name: 1 to 253 characters of letters, digits, dashes, underscores, dots, `*` and `@`. */
export const DnsName = z.string().min(1).max(253).regex(/^[A-Za-z0-9_*@.-]+$/, { error: "Use a DNS name" })

/** A TTL in seconds: 1 (automatic) or 60 to 86400. */
export const DnsTtl = z.number().int().refine((ttl) => ttl === 1 || (ttl >= 60 && ttl <= 86400), {
  error: "Use 1 (automatic) or 60 to 86400 seconds"
})

const PROXIABLE: ReadonlySet<string> = new Set(["A", "AAAA", "CNAME"])

/**
 * `POST /api/v1/platforms/{platformId}/dns-records`: `type`, `name`, `content` (an IPv4 address for
 * `A`, IPv6 for `AAAA`), `ttl` (default 1, automatic), `proxied` (default false; only `A`, `AAAA`
 * and `CNAME` can be proxied), `priority` (0 to 65535, for `MX` and `SRV`).
 */
export const CreateDnsRecordRequest = z
  .object({
    type: DnsRecordType,
    name: DnsName,
    content: z.string().min(1).max(TEXT_MAX_LENGTH),
    ttl: DnsTtl.default(1),
    proxied: z.boolean().default(false),
    priority: z.number().int().min(0).max(65535).optional()
  })
  .superRefine((record, ctx) => {
    if (record.type === "A" && !z.ipv4().safeParse(record.content).success) {
      ctx.addIssue({ code: "custom", path: ["content"], message: "An A record's content is an IPv4 address" })
    }
    if (record.type === "AAAA" && !z.ipv6().safeParse(record.content).success) {
      ctx.addIssue({ code: "custom", path: ["content"], message: "An AAAA record's content is an IPv6 address" })
    }
    if (record.proxied && !PROXIABLE.has(record.type)) {
      ctx.addIssue({ code: "custom", path: ["proxied"], message: "Only A, AAAA and CNAME records can be proxied" })
    }
  })
export type CreateDnsRecordRequest = z.input<typeof CreateDnsRecordRequest>

/** A DNS record of a platform, as the registry keeps it. */
export const DnsRecord = z.object({
  id: z.string(),
  platformId: z.string(),
  type: DnsRecordType,
  name: z.string(),
  content: z.string(),
  ttl: z.number().int(),
  proxied: z.boolean(),
  priority: z.number().int().nullable(),
  createdAt: z.string(),
  updatedAt: z.string()
})
export type DnsRecord = z.infer<typeof DnsRecord>

/** The path of a platform's DNS records. */
export const DnsRecordsParams = z.object({ platformId: PlatformId })
/** The path of one DNS record. */
export const DnsRecordParams = z.object({ platformId: PlatformId, recordId: DnsRecordId })
/** `GET .../dns-records`: `cursor`, `limit` and the filters `type` and `name`. */
export const ListDnsRecordsQuery = z.object({ cursor: cursorParam, limit: limitParam(), type: DnsRecordType.optional(), name: DnsName.optional() })
export type ListDnsRecordsQuery = z.output<typeof ListDnsRecordsQuery>
/** A page of DNS records. */
export const DnsRecordPage = page(DnsRecord)
export type DnsRecordPage = z.infer<typeof DnsRecordPage>

// ---------------------------------------------------------------------------------------------
// Secret records (decision 0245)

/** The longest secret value: 64 KiB of text (certificates, keys). */
export const SECRET_VALUE_MAX_LENGTH = 65536

/** A secret's name: an environment variable's name, 1 to 100 characters (the router's longest path parameter). */
export const SecretName = z.string().min(1).max(100).regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
  error: "Use letters, digits and underscores, not starting with a digit"
})

/** A secret record's status: `active` while it holds a value, `deleted` once removed (the value erased). */
export const SecretStatus = z.enum(["active", "deleted"])
export type SecretStatus = z.infer<typeof SecretStatus>

/** A resource's secret as the registry answers it (SecretRecord): never its value. */
export const SecretRecord = z.object({
  id: z.string(),
  resourceId: z.string(),
  secretName: z.string(),
  status: SecretStatus,
  lastSetAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string()
})
export type SecretRecord = z.infer<typeof SecretRecord>

/** `PUT .../secrets/{secretName}`: the value, stored encrypted and never answered. */
export const SetSecretRequest = z.object({ value: z.string().min(1).max(SECRET_VALUE_MAX_LENGTH) })
export type SetSecretRequest = z.input<typeof SetSecretRequest>

/** The path of one secret. */
/** The path of one secret: its name is what a `PUT` writes, so a name of the wrong shape stays a 400 (decision 0567). */
export const SecretParams = z.object({ platformId: PlatformId, resourceId: ResourceId, secretName: pathInput(SecretName) })
/** `GET .../secrets`: `cursor`, `limit` and `status` (deleted ones only with `status=deleted`). */
export const ListSecretsQuery = z.object({ cursor: cursorParam, limit: limitParam(), status: SecretStatus.optional() })
export type ListSecretsQuery = z.output<typeof ListSecretsQuery>
/** A page of secret records. */
export const SecretPage = page(SecretRecord)
export type SecretPage = z.infer<typeof SecretPage>

// ---------------------------------------------------------------------------------------------
// Routes

const tags = ["registry: resources"]
/** Another tenant's platform, entity or resource answers 404 (never 403). */
const oneResource = { 400: null, 401: null, 403: null, 404: null } as const
const read = { auth: "caller", permission: "resources:read", tenant: "organization", tags } as const
const write = { auth: "caller", permission: "resources:manage", tenant: "organization", tags } as const
/** A resource's secrets: `secrets:read` lists them, `secrets:manage` sets and removes them. */
const readSecrets = { ...read, permission: "secrets:read" } as const
const writeSecrets = { ...write, permission: "secrets:manage" } as const
/** One resource, with its `ETag` (its version, for `If-Match`). */
const taggedResource = { schema: ResourceRecord, headers: { etag: "The resource's version, for If-Match" } }

/** The six resource routes under one family's prefix (`/api/v1` or `/api/v1/resources`). */
const resourceRoutes = <const F extends string>(family: F, operation: (name: string) => string | undefined) => {
  const platform = `${family}/platforms/{platformId}` as const
  const ids = (name: string) => {
    const id = operation(name)
    return id === undefined ? {} : { operationId: id }
  }
  return defineRoutes({
    listResources: {
      method: "GET",
      path: `${platform}/resources`,
      summary: "List a platform's resources (filters resourceType, environment, status, entityId)",
      description: "A cursor-paged list of a platform's edge resources (workers, databases, buckets, queues, …), filtered by `resourceType`, `environment`, `status` or `entityId`. Needs `resources:read`; another tenant's platform answers 404.",
      ...read,
      ...ids("listResources"),
      request: { params: ResourcesParams, query: ListResourcesQuery },
      responses: { 200: ResourcePage, ...oneResource }
    },
    listEntityResources: {
      method: "GET",
      path: `${platform}/entities/{entityId}/resources`,
      summary: "List an entity's resources (filters resourceType, environment, status)",
      description: "A cursor-paged list of one entity's resources, filtered by `resourceType`, `environment` or `status`. Needs `resources:read`.",
      ...read,
      ...ids("listEntityResources"),
      request: { params: EntityResourcesParams, query: ListEntityResourcesQuery },
      responses: { 200: ResourcePage, ...oneResource }
    },
    createResource: {
      method: "POST",
      path: `${platform}/entities/{entityId}/resources`,
      summary: "Record a resource of a live entity (pending); its edgeName unique among live resources (409)",
      description: "Records a resource of a live entity in status `pending` (provisioning makes it on the edge), with its type, environment and edge name; the edge name is unique among live resources (409). Answers it with its `ETag`. Needs `resources:manage`.",
      ...write,
      ...ids("createResource"),
      request: { params: EntityResourcesParams, body: CreateResourceRequest },
      responses: { 201: taggedResource, ...oneResource, 409: null }
    },
    getResource: {
      method: "GET",
      path: `${platform}/resources/{resourceId}`,
      summary: "Read a resource",
      description: "One resource with its status, edge name, edge URL and `ETag`. Another tenant's resource answers 404.",
      ...read,
      ...ids("getResource"),
      request: { params: ResourceParams },
      responses: { 200: taggedResource, ...oneResource }
    },
    updateResource: {
      method: "PATCH",
      path: `${platform}/resources/{resourceId}`,
      summary: "Set a live resource's status or edgeUrl (If-Match honoured: 412 when stale)",
      description: "Sets a live resource's `status` or `edgeUrl` (what provisioning reports). `If-Match` with a stale `ETag` is 412; a deleted resource 409. Needs `resources:manage`.",
      ...write,
      ...ids("updateResource"),
      request: { params: ResourceParams, body: UpdateResourceRequest },
      responses: { 200: taggedResource, ...oneResource, 409: null, 412: null }
    },
    deleteResource: {
      method: "DELETE",
      path: `${platform}/resources/{resourceId}`,
      summary: "Soft-delete a resource",
      description: "Soft-deletes a resource: it leaves lists and lookups, and its edge name is free again. Needs `resources:manage`.",
      ...write,
      ...ids("deleteResource"),
      request: { params: ResourceParams },
      responses: { 200: Success, ...oneResource }
    }
  })
}

const lookupRoute = <const P extends string>(path: P, operationId?: string) => ({
  method: "GET" as const,
  path,
  summary: "The live resource of an edge name (the caller's platform only; operators and the service key: any)",
  description: "Finds the live resource with the edge name `edgeName`: on the caller's own platform for a tenant; on any platform for operators and the static service key. 404 when none is live. Needs `resources:read`.",
  ...read,
  ...(operationId === undefined ? {} : { operationId }),
  request: { query: LookupQuery },
  responses: { 200: taggedResource, 400: null, 401: null, 403: null, 404: null }
})

/** The resource routes under `/api/v1/platforms/{platformId}` (the second family). */
export const ResourceRoutes = resourceRoutes("/api/v1", () => undefined)

/** `GET /api/v1/lookup?edgeName=`: the lookup of the `/api/v1` family. */
export const LookupRoutes = defineRoutes({ lookupResource: lookupRoute("/api/v1/lookup") })

/**
 * The same resource routes and lookup under `/api/v1/resources` (the first family): the
 * same handlers, the same answers. Their operation ids end in `InResourcesFamily`.
 */
export const ResourceFamilyRoutes = defineRoutes({
  ...resourceRoutes("/api/v1/resources", (name) => `${name}InResourcesFamily`),
  lookupResource: lookupRoute("/api/v1/resources/lookup", "lookupResourceInResourcesFamily")
})

const dnsTags = ["registry: dns records"]
const dns = "/api/v1/platforms/{platformId}/dns-records"

/** A platform's DNS records, kept in the registry and applied through the edge provider (decision 0244). */
export const DnsRecordRoutes = defineRoutes({
  listDnsRecords: {
    method: "GET",
    path: dns,
    summary: "List a platform's DNS records (filters type, name)",
    description: "A platform's DNS records, filtered by `type` or `name`, each with the record it points at and its status at the edge provider. Needs `resources:read`.",
    ...read,
    tags: dnsTags,
    request: { params: DnsRecordsParams, query: ListDnsRecordsQuery },
    responses: { 200: DnsRecordPage, ...oneResource }
  },
  createDnsRecord: {
    method: "POST",
    path: dns,
    summary: "Add a DNS record (applied through the edge provider); 409 for the same type, name and content",
    description: "Adds a DNS record (A, AAAA, CNAME, TXT, …) to the platform's zone and applies it through the edge provider. The same type, name and content twice is 409. Needs `resources:manage`.",
    ...write,
    tags: dnsTags,
    request: { params: DnsRecordsParams, body: CreateDnsRecordRequest },
    responses: { 201: DnsRecord, ...oneResource, 409: null }
  },
  getDnsRecord: {
    method: "GET",
    path: `${dns}/{recordId}`,
    summary: "Read a DNS record",
    description: "One DNS record by id. Another tenant's answers 404.",
    ...read,
    tags: dnsTags,
    request: { params: DnsRecordParams },
    responses: { 200: DnsRecord, ...oneResource }
  },
  deleteDnsRecord: {
    method: "DELETE",
    path: `${dns}/{recordId}`,
    summary: "Remove a DNS record (from the edge provider too)",
    description: "Removes a DNS record from the registry and from the edge provider. Needs `resources:manage`.",
    ...write,
    tags: dnsTags,
    request: { params: DnsRecordParams },
    responses: { 200: Success, ...oneResource }
  }
})

const secretTags = ["registry: secrets"]
const secrets = "/api/v1/platforms/{platformId}/resources/{resourceId}/secrets"

/** A resource's secret records (setting and removing one: decision 0245). Values are never answered. */
export const SecretRoutes = defineRoutes({
  listResourceSecrets: {
    method: "GET",
    path: secrets,
    summary: "List a resource's secrets (names, status, lastSetAt; never values)",
    description: "The secrets of a resource: names, status and when each was last set; never a value. Needs `secrets:read`.",
    ...readSecrets,
    tags: secretTags,
    request: { params: ResourceParams, query: ListSecretsQuery },
    responses: { 200: SecretPage, ...oneResource }
  },
  setResourceSecret: {
    method: "PUT",
    path: `${secrets}/{secretName}`,
    summary: "Set a secret's value (stored encrypted): 201 when new, 200 when replaced",
    description: "Sets the value of a resource's secret, stored encrypted (AES-256-GCM) and never returned: 201 when the name is new, 200 when it replaces a value. Needs `secrets:manage`.",
    ...writeSecrets,
    tags: secretTags,
    request: { params: SecretParams, body: SetSecretRequest },
    responses: { 200: SecretRecord, 201: SecretRecord, ...oneResource }
  },
  deleteResourceSecret: {
    method: "DELETE",
    path: `${secrets}/{secretName}`,
    summary: "Remove a secret (its value erased; the record stays, deleted)",
    description: "Removes a secret: its value is erased; its record stays, marked deleted, for the audit. Needs `secrets:manage`.",
    ...writeSecrets,
    tags: secretTags,
    request: { params: SecretParams },
    responses: { 200: Success, ...oneResource }
  }
})
