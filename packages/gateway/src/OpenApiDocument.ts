import { HttpRouter, HttpServerResponse } from "@effect/platform"
import type * as Contracts from "@core/contracts"
import { defineRoutes, ErrorEnvelope, Events, type OpenApiDocument, OpenApiDocumentBody, publicPathOf, Readiness, type RouteSpec, SERVICE_DECLARATIONS, type ServiceDeclaration, toOpenApi, type UpstreamName } from "@core/contracts"
import { Effect } from "effect"
import { isUnder, type ServiceName } from "./Routes.js"

/** Where the gateway serves the merged document. */
export const PATH = "/api/v1/openapi.json"

/** Clients and shared caches may keep the document five minutes. */
export const CACHE_CONTROL = "public, max-age=300"

/** A catalogue of routes: a list, or a named record whose names become operation ids. */
export type Catalogue = Contracts.Catalogue

/**
 * One service's contract as the gateway publishes it: its routes under its gateway `prefix`, each
 * path prefixed whole unless it already lies under the prefix (identity's `/api/core/roles` is
 * `/api/v1/iam/api/core/roles`, billing's `/api/billing/invoices` is
 * `/api/v1/billing/api/billing/invoices`), as the SDK calls them (decision 0610). The service also
 * serves its routes without its `base`, which the gateway's rule table (`RouteRules`) knows.
 */
export interface ServiceContract {
  readonly service: ServiceName | "GATEWAY"
  /** The gateway prefix the routes are reached under; empty for the gateway's own routes. */
  readonly prefix: string
  readonly base?: string
  /** The service's tag: its routes' own tags are namespaced under it, untagged routes get it. */
  readonly tag: { readonly name: string; readonly description: string }
  readonly catalogues: ReadonlyArray<Catalogue>
  /** The service's further prefixes, forwarded whole (its declaration's `alsoAt`): their routes keep their paths. */
  readonly alsoAt?: Readonly<Record<string, string>>
}

/**
 * What the server answers any request whose request line and headers pass Node's limit (16 KiB by
 * default): the probes' only client error, since they take no input and are never rate-limited.
 */
const HEADERS_TOO_LARGE = {
  description: "`HEADERS_TOO_LARGE`: the request line and headers are larger than the server accepts",
  schema: ErrorEnvelope
} as const

/**
 * The gateway's own public routes. The probes and the metrics are never rate-limited (they are
 * polled); the gateway's rule table (`RouteRules`) reads that from here.
 */
export const GatewayRoutes = defineRoutes({
  health: {
    method: "GET",
    path: "/health",
    summary: "Liveness: the text ok",
    description: "Answers 200 `ok` (`text/plain`, `no-store`) as soon as the process listens, before the database has " +
      "opened: a process supervisor's liveness probe. It needs no credentials and is never rate-limited.",
    auth: "public",
    rateLimit: "exempt",
    responses: { 200: { contentType: "text/plain", description: "The text ok" }, 431: HEADERS_TOO_LARGE }
  },
  ready: {
    method: "GET",
    path: "/ready",
    summary: "Readiness: every dependency the server cannot serve without answers",
    description: "Asks each dependency (the database with `SELECT 1`, Redis when `REDIS_URL` is set), each within 2 seconds. " +
      "200 once migrations ran and the database answers; Redis down is `degraded`, still 200, since every use of it " +
      "has an in-process fallback. 503 while the server is starting or when the database does not answer: a load " +
      "balancer's readiness probe.",
    auth: "public",
    rateLimit: "exempt",
    responses: {
      200: { schema: Readiness, description: "Ready: status `ready`, or `degraded` when only an optional check failed" },
      431: HEADERS_TOO_LARGE,
      503: { schema: Readiness, description: "Status `starting` (migrations still running) or `unavailable` (a required check failed)" }
    }
  },
  metrics: {
    method: "GET",
    path: "/metrics",
    summary: "Prometheus metrics of this process (the static key)",
    description: "Every metric of the process in the Prometheus text format (docs/observability.md): " +
      "`http_server_request_duration_seconds` by route template, method and status, the job queue, webhook " +
      "deliveries, credential-cache lookups, rate-limit refusals, unreachable or slow upstreams, and the process's " +
      "CPU, memory and event-loop delay. Labels never carry ids. Read with the static key " +
      "(`Authorization: Bearer <CORE_STATIC_API_KEY>`); `CORE_METRICS_PORT` serves it without credentials on a port of its own.",
    auth: "service",
    rateLimit: "exempt",
    responses: {
      200: { contentType: "text/plain; version=0.0.4", description: "The Prometheus text format" },
      401: { schema: ErrorEnvelope, description: "`UNAUTHORIZED`: no static key, or another one" },
      431: HEADERS_TOO_LARGE
    }
  },
  openApiDocument: {
    method: "GET",
    path: PATH,
    summary: "This document: every service's routes under their gateway prefixes",
    description: "The OpenAPI 3.1 document of every route the gateway serves, generated from the route catalogues of " +
      "`@core/contracts` (the same ones the servers and the SDK use). Public and cacheable for five minutes.",
    auth: "public",
    responses: { 200: { schema: OpenApiDocumentBody, description: "An OpenAPI 3.1 document", headers: { "cache-control": CACHE_CONTROL } } }
  }
})

/**
 * Every contract the merged document describes: the gateway's own routes, then each service as its
 * declaration in `@core/contracts` gives it (`ServiceDeclarations.ts`).
 */
export const CONTRACTS: ReadonlyArray<ServiceContract> = [
  { service: "GATEWAY", prefix: "", tag: { name: "gateway", description: "The gateway's own routes" }, catalogues: [GatewayRoutes] },
  ...SERVICE_DECLARATIONS.map((declaration: ServiceDeclaration & { readonly upstream: UpstreamName }): ServiceContract => ({
    service: declaration.upstream,
    prefix: declaration.prefix,
    ...(declaration.base === undefined ? {} : { base: declaration.base }),
    tag: declaration.tag,
    catalogues: declaration.catalogues,
    ...(declaration.alsoAt === undefined ? {} : { alsoAt: declaration.alsoAt })
  }))
]

/** The path of a service's route as the gateway publishes it. */
export const gatewayPath = (contract: Pick<ServiceContract, "prefix" | "base">, path: string): string =>
  contract.base !== undefined && isUnder(path, contract.base)
    ? `${contract.prefix}${path.slice(contract.base.length)}`
    : `${contract.prefix}${path}`

const namespaced = (contract: ServiceContract, tags: ReadonlyArray<string> | undefined): ReadonlyArray<string> =>
  tags === undefined || tags.length === 0
    ? [contract.tag.name]
    : tags.map((tag) => (tag === contract.tag.name || tag.startsWith(`${contract.tag.name}: `) ? tag : `${contract.tag.name}: ${tag}`))

const entriesOf = (catalogue: Catalogue): Array<readonly [string | undefined, RouteSpec]> =>
  Array.isArray(catalogue)
    ? (catalogue as ReadonlyArray<RouteSpec>).map((route) => [route.operationId, route] as const)
    : Object.entries(catalogue as Readonly<Record<string, RouteSpec>>).map(([name, route]) => [route.operationId ?? name, route] as const)

/**
 * A contract's routes at the paths clients call them by through the gateway (`publicPathOf`:
 * the SDK's, so provisioning's `/api/v1/provisioning/api/v1/provision/jobs`; decision 0610),
 * namespaced tags, operation ids from their names.
 */
const routesOf = (contract: ServiceContract): Array<RouteSpec> =>
  contract.catalogues.flatMap(entriesOf).map(([operationId, route]) => ({
    ...route,
    path: publicPathOf(contract, route.path),
    tags: namespaced(contract, route.tags),
    ...(operationId === undefined ? {} : { operationId })
  }))

/** What each group of a service's operations is about, by its (namespaced) tag. */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  "identity: accounts": "Sign-up, sign-in (password and magic link), sessions, password reset, email verification, profile and account deletion, in better-auth's shapes",
  "identity: organizations": "Organizations, members and invitations (better-auth's organization plugin), organization setup, and the operator's organizations",
  "identity: authorization": "Roles and their permissions, grants and denials, API keys, service tokens and the audit log",
  "identity: device authorization": "Device login for the CLI (RFC 8628): device codes, the token endpoint, approval and the OAuth metadata",
  "identity: web pages": "Server-rendered pages that work without JavaScript: home, sign-in, sign-up, account, organization setup, password reset, device activation",
  "identity: service": "The identity service's own health",
  "registry: platforms": "Platforms (one per tenant organization) and their lifecycle: create, rename, suspend, restore, cancel, delete",
  "registry: entities": "A platform's entity tree: tenants and subtenants, their ancestors and descendants",
  "registry: features": "Feature activations on an entity and the entity's resolved manifest",
  "registry: resources": "A platform's edge resources (both path families) and the lookup by edge name",
  "registry: dns records": "DNS records of a platform's resources",
  "registry: secrets": "Secrets of a resource: names and versions only, values never returned",
  "registry: onboarding": "Onboarding flows: a new user's platform made in one asynchronous job",
  "provisioning: domains": "Custom hostnames of a platform and their verification",
  "provisioning: jobs": "Asynchronous provisioning jobs: creating edge resources, their state and event stream",
  "provisioning: operator": "Operator controls over jobs: retry, cancel, force-complete, and the dead-letter queue",
  "provisioning: internal": "The hook by which identity reports a platform's status change",
  "billing: subscriptions": "A platform's subscription: its plan tier, upgrade, change and cancellation with proration",
  "billing: invoices": "A platform's invoices",
  "billing: payments": "Payment methods, setup intents and the billing portal",
  "billing: internal": "Usage events reported by Core's own services",
  "billing: provider": "The payment provider's webhooks and the hosted portal's pages",
  "billing: operator": "Operator tools: every platform's subscription, credits, refunds and usage",
  "billing: usage": "Metered usage: current period, history, per entity, per day, alerts, per stack"
}

/** Core's license, as its packages declare it. */
export const LICENSE = { name: "Apache License 2.0", identifier: "Apache-2.0" } as const

/**
 * Where the paths are reached: the gateway's own address, which only the installation knows (its
 * `CORE_PUBLIC_URL`); `npm start`'s by default.
 */
export const SERVERS = [{
  url: "{origin}",
  description: "The gateway (the all-in-one server, or the gateway process)",
  variables: { origin: { default: "http://localhost:8787", description: "The gateway's origin: CORE_PUBLIC_URL" } }
}] as const

/** The merged document: `toOpenApi` over every contract, plus `x-tagGroups` grouping tags by service. */
export type GatewayDocument = OpenApiDocument & {
  readonly "x-tagGroups": ReadonlyArray<{ readonly name: string; readonly tags: ReadonlyArray<string> }>
}

/**
 * Merge service contracts into one OpenAPI 3.1 document. One `toOpenApi` pass converts every
 * schema, so components shared by services appear once and different schemas of one name are
 * told apart (`Name`, `Name2`); operation ids stay the catalogues' names (suffixed on a clash).
 *
 * @example
 * const document = OpenApiDocument.make({ servers: [{ url: "https://core.example.com" }] }) // default: `SERVERS`
 */
export const make = (options: {
  readonly contracts?: ReadonlyArray<ServiceContract>
  readonly servers?: ReadonlyArray<{ readonly url: string; readonly description?: string }>
} = {}): GatewayDocument => {
  const contracts = options.contracts ?? CONTRACTS
  const routes = contracts.map(routesOf)
  const document = toOpenApi({
    title: "Core API",
    version: "1",
    description: "Every Core service behind the gateway, each under its public prefix as its declaration in `@core/contracts` gives it.",
    license: LICENSE,
    servers: options.servers ?? SERVERS,
    rateLimited: true,
    tags: [
      ...contracts.map((contract) => contract.tag),
      ...Object.entries(TAG_DESCRIPTIONS).map(([name, description]) => ({ name, description }))
    ],
    routes: routes.flat(),
    // Core's own contracts post the event catalogue's events to their users' endpoints.
    ...(options.contracts === undefined ? { webhooks: Events.eventWebhooks() } : {})
  })
  const used = new Set(routes.flat().flatMap((route) => route.tags ?? []))
  return {
    ...document,
    tags: (document.tags ?? []).filter((tag) => used.has(tag.name)),
    // One group per service tag: a service of several contracts (the registry) is one group.
    "x-tagGroups": [...new Set(contracts.map((contract) => contract.tag.name))].map((name) => ({
      name,
      tags: [...new Set(contracts.flatMap((contract, i) => (contract.tag.name === name ? routes[i].flatMap((route) => route.tags ?? []) : [])))]
    }))
  }
}

let cached: { readonly document: GatewayDocument; readonly body: string } | undefined

const cache = () => {
  if (cached === undefined) {
    const document = make()
    cached = { document, body: JSON.stringify(document) }
  }
  return cached
}

/** The merged document of `CONTRACTS`, built on first use and kept for the life of the process. */
export const document = (): GatewayDocument => cache().document

/**
 * `GET /api/v1/openapi.json` (and `HEAD`): the merged document, serialized once, public and
 * cacheable for five minutes. Other requests fail with the router's `RouteNotFound`.
 */
export const route: HttpRouter.HttpRouter = HttpRouter.empty.pipe(
  HttpRouter.get(
    PATH,
    Effect.sync(() =>
      HttpServerResponse.text(cache().body, {
        contentType: "application/json",
        headers: { "cache-control": CACHE_CONTROL }
      }))
  )
)
