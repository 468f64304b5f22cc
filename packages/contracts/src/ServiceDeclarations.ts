import * as Billing from "./billing/index.js"
import * as Deploy from "./deploy/index.js"
import * as Events from "./events/index.js"
import * as Iam from "./iam/index.js"
import * as Provisioning from "./provisioning/index.js"
import * as Registry from "./registry/index.js"
import type { RouteSpec } from "./Routes.js"
import * as Stacks from "./stacks/index.js"
import * as Vault from "./vault/index.js"
import { isUnderPrefix, underGatewayPrefix } from "./GatewayPrefixes.js"

/** A catalogue of routes: a named record whose names become operation ids (or a list). */
export type Catalogue = ReadonlyArray<RouteSpec> | Readonly<Record<string, RouteSpec>>

/**
 * One Core service, declared once (docs/vault/guides/adding-a-service.md): its name, where the
 * gateway serves it, the paths the specification requires it to answer and its routes. Everything
 * that needs one of these reads it from here — the gateway's routing table and rules, the merged
 * OpenAPI document, the zod-free route table of `@core/contracts/routes` (and so the SDK), the
 * server's composition (`serve --service <name>`), each service's router and the
 * `CORE_UPSTREAM_<NAME>_URL` variables.
 */
export interface ServiceDeclaration {
  /** The name `serve --service` takes and `CORE_UPSTREAM_<NAME>_URL` spells upper-case. */
  readonly name: string
  /** The gateway's name of the upstream (`IAM`, `REGISTRY`, …): the name upper-case. */
  readonly upstream: string
  /** Its name and a paragraph about it, for its page of the API reference (`docs/api/<tag>.md`). */
  readonly title: string
  readonly summary: string
  /** Its group in the OpenAPI document, and its page's file name in the API reference. */
  readonly tag: { readonly name: string; readonly description: string }
  /**
   * The public prefix: a request to `<prefix>/<rest>` reaches the service as `/<rest>` (or whole,
   * with `keepPrefix`).
   */
  readonly prefix: string
  /** The upstream receives the whole path, the prefix kept (the vault's `/mcp`). */
  readonly keepPrefix?: true
  /**
   * The path the specification gives the service's routes (`/api/billing`, `/api/v1/provision`,
   * `/api/v1/platforms`): its routes are declared under it and served both with and without it, so
   * `<prefix><path>` and the specification's own form keep working (derived aliases).
   */
  readonly base?: string
  /**
   * Further public prefixes of the service, forwarded whole (their routes are declared at these
   * gateway paths): the registry's `/api/v1/resources`, the well-known documents at the root.
   */
  readonly alsoAt?: Readonly<Record<string, string>>
  /** Everything under its prefixes stays open to a suspended platform's callers (billing: a suspended tenant can pay). */
  readonly suspensionExempt?: true
  /** The service is a protected resource with RFC 9728 metadata at this root path (the vault, decision 0606). */
  readonly resourceMetadata?: string
  /** `Host` must name this server, else 403 (DNS rebinding; the vault's MCP endpoint, decision 0607). */
  readonly checksHost?: true
  /** Its route catalogues, each route once (the composites such as `Iam.IdentityRoutes` are made of these). */
  readonly catalogues: ReadonlyArray<Catalogue>
}

const declare = <const D extends ServiceDeclaration>(declaration: D): D => declaration

/** Identity: accounts, sessions, organizations, authorization, keys, device login, its pages. */
export const IdentityService = declare({
  name: "iam",
  title: "Identity",
  summary: "Accounts, sessions, organizations, roles and grants, API keys, device login, the web pages. Served under `/api/v1/iam`.",
  upstream: "IAM",
  tag: { name: "identity", description: "Identity service (/api/v1/iam): sessions, organizations, roles, grants, keys, device login" },
  prefix: "/api/v1/iam",
  // RFC 8414 §3.1 puts the gateway issuer's metadata at the root, the issuer's path after it (decision 0606).
  alsoAt: { authorizationServerMetadata: Iam.DeviceRoutes.gatewayAuthorizationServerMetadata.path },
  catalogues: [Iam.AccountRoutes, Iam.OrganizationRoutes, Iam.AuthorizationRoutes, Iam.DeviceRoutes, Iam.WebRoutes, Iam.ServiceRoutes]
})

/** The registry: platforms, their entities, features, resources, DNS records, secrets, onboarding. */
export const RegistryService = declare({
  name: "registry",
  title: "Registry",
  summary: "Platforms and their lifecycle, entities, resources (two path families), lookups, features and manifests, DNS records, resource secrets, onboarding.",
  upstream: "REGISTRY",
  tag: { name: "registry", description: "Registry (/api/v1/platforms): platforms" },
  prefix: "/api/v1/platforms",
  base: "/api/v1/platforms",
  // Declared at their gateway paths and forwarded whole (decision 0242).
  alsoAt: { onboarding: "/api/v1/onboarding", resources: "/api/v1/resources", lookup: "/api/v1/lookup" },
  catalogues: [
    Registry.PlatformRoutes,
    Registry.EntityRoutes,
    Registry.FeatureRoutes,
    Registry.ResourceRoutes,
    Registry.ResourceFamilyRoutes,
    Registry.LookupRoutes,
    Registry.DnsRecordRoutes,
    Registry.SecretRoutes,
    Registry.OnboardingRoutes
  ]
})

/** The stack catalogue: templates and their versioned definitions. */
export const StacksService = declare({
  name: "stacks",
  title: "Stack registry",
  summary: "Stack templates and their published, versioned definitions. Served under `/api/v1/stacks`.",
  upstream: "STACKS",
  tag: { name: "stacks", description: "Stack catalogue (/api/v1/stacks): templates and their versioned definitions" },
  prefix: "/api/v1/stacks",
  base: "/api/v1/stacks",
  catalogues: [Stacks.StackRoutes]
})

/** Provisioning: jobs, custom domains and the platform-status hook. */
export const ProvisioningService = declare({
  name: "provisioning",
  title: "Provisioning",
  summary: "Provisioning jobs, their events and dead letters, domains. Served under `/api/v1/provisioning`.",
  upstream: "PROVISIONING",
  tag: { name: "provisioning", description: "Provisioning (/api/v1/provisioning): jobs and the platform-status hook" },
  prefix: "/api/v1/provisioning",
  base: "/api/v1/provision",
  catalogues: [Provisioning.ProvisioningRoutes]
})

/** Billing: plans, subscriptions, usage, invoices, payments, operator tools. */
export const BillingService = declare({
  name: "billing",
  title: "Billing",
  summary: "Plans, subscriptions, invoices, payment methods, usage, the operator tools and the payment provider's webhooks. Served under `/api/v1/billing`.",
  upstream: "BILLING",
  tag: { name: "billing", description: "Billing (/api/v1/billing): plans, subscriptions, usage, invoices, payments, operator tools" },
  prefix: "/api/v1/billing",
  base: "/api/billing",
  suspensionExempt: true,
  catalogues: [Billing.BillingRoutes]
})

/** The vault: the MCP tool server over Core's architecture docs. */
export const VaultService = declare({
  name: "vault",
  title: "Vault tool server",
  summary: "The architecture vault's tools over JSON-RPC (MCP) at `/mcp`.",
  upstream: "VAULT",
  tag: { name: "vault", description: "Vault (/mcp): the MCP tool server over Core's architecture docs" },
  // MCP Streamable HTTP, forwarded whole (decision 0403).
  prefix: "/mcp",
  keepPrefix: true,
  alsoAt: { protectedResourceMetadata: Vault.VaultRoutes.protectedResourceMetadata.path },
  resourceMetadata: Vault.VaultRoutes.protectedResourceMetadata.path,
  checksHost: true,
  catalogues: [Vault.VaultRoutes]
})

/** The command line's backend: source repositories, features, deploys, secrets. */
export const CliService = declare({
  name: "cli",
  title: "Command-line backend",
  summary: "Repositories, features, deploys and deployments, secrets. Served under `/api/v1/cli`.",
  upstream: "CLI",
  tag: { name: "cli", description: "Command-line backend (/api/v1/cli): source repositories, features, deploys, secrets" },
  prefix: "/api/v1/cli",
  base: "/api/v1/cli",
  catalogues: [Deploy.CliRoutes]
})

/** Events and outbound webhooks: the organization's events, endpoints, deliveries, the event stream. */
export const EventsService = declare({
  name: "events",
  title: "Events and webhooks",
  summary: "The organization's events (kept 30 days, listed, streamed) and outbound webhooks signed per Standard Webhooks: endpoints, secrets, the delivery log, replay and retry. Served under `/api/v1/webhooks` and `/api/v1/events`.",
  upstream: "EVENTS",
  tag: { name: "events", description: "Events and webhooks (/api/v1/webhooks, /api/v1/events): endpoints, deliveries, the event list and stream" },
  prefix: "/api/v1/webhooks",
  base: "/api/v1/webhooks",
  // The event routes are declared at their gateway paths and forwarded whole.
  alsoAt: { events: "/api/v1/events" },
  catalogues: [Events.WebhookRoutes, Events.EventRoutes]
})

/** Every service of Core, in the order the server builds them and the documents list them. */
export const SERVICE_DECLARATIONS = [
  IdentityService,
  RegistryService,
  StacksService,
  ProvisioningService,
  BillingService,
  CliService,
  VaultService,
  EventsService
] as const

/** A service's name (`iam`, `registry`, …). */
export type ServiceName = (typeof SERVICE_DECLARATIONS)[number]["name"]

/** A service's gateway upstream name (`IAM`, `REGISTRY`, …). */
export type UpstreamName = (typeof SERVICE_DECLARATIONS)[number]["upstream"]

/** Every service's name, as `serve --service` takes it. */
export const SERVICE_NAMES: ReadonlyArray<ServiceName> = SERVICE_DECLARATIONS.map((service) => service.name)

/** Every upstream name, as the gateway's table names them. */
export const UPSTREAM_NAMES: ReadonlyArray<UpstreamName> = SERVICE_DECLARATIONS.map((service) => service.upstream)

/** The declaration named `name` (`iam`) or `upstream` (`IAM`), if there is one. */
export const serviceDeclaration = (name: string): (typeof SERVICE_DECLARATIONS)[number] | undefined =>
  SERVICE_DECLARATIONS.find((service) => service.name === name || service.upstream === name)

/** One public prefix of a service, as the gateway routes it. */
export interface ServiceMount {
  readonly prefix: string
  readonly upstream: UpstreamName
  readonly keepPrefix?: true
  readonly suspensionExempt?: true
  readonly resourceMetadata?: string
  readonly checksHost?: true
}

/** Every public prefix of every service: the gateway's routing table (longest prefix wins there). */
export const serviceMounts = (): ReadonlyArray<ServiceMount> =>
  SERVICE_DECLARATIONS.flatMap((service: ServiceDeclaration & { readonly upstream: UpstreamName }) => {
    const shared = service.suspensionExempt === undefined ? {} : { suspensionExempt: true as const }
    const own: ServiceMount = {
      prefix: service.prefix,
      upstream: service.upstream,
      ...(service.keepPrefix === undefined ? {} : { keepPrefix: true as const }),
      ...shared,
      ...(service.resourceMetadata === undefined ? {} : { resourceMetadata: service.resourceMetadata }),
      ...(service.checksHost === undefined ? {} : { checksHost: true as const })
    }
    const others = Object.values(service.alsoAt ?? {}).map((prefix): ServiceMount => ({ prefix, upstream: service.upstream, keepPrefix: true, ...shared }))
    return [own, ...others]
  })

/**
 * A declared path as a client reaches it through the gateway: the path itself when it lies under
 * one of the service's prefixes (the registry's `/api/v1/resources/…`, the vault's `/mcp`, identity's
 * root metadata), else the service's prefix before it (`/api/v1/provisioning/api/v1/provision/jobs`,
 * `/api/v1/billing/api/billing/invoices`; decision 0610). The SDK, the OpenAPI document and the API
 * reference all write a route's path this way.
 */
export const publicPathOf = (service: Pick<ServiceDeclaration, "prefix" | "alsoAt">, path: string): string =>
  Object.values(service.alsoAt ?? {}).some((prefix) => isUnderPrefix(path, prefix)) ? path : underGatewayPrefix(service.prefix, path)

/**
 * The prefix a client puts before a declared path (`publicPathOf` is `prefix + path`): `""` when
 * the path already is the public one.
 */
export const publicPrefixOf = (service: Pick<ServiceDeclaration, "prefix" | "alsoAt">, path: string): string => {
  const full = publicPathOf(service, path)
  return full === path ? "" : service.prefix
}

/**
 * The prefix the gateway serves each service under, by the names clients have used since the
 * first release (`identity` is the `iam` service; `resources`, `lookup` and `onboarding` are the
 * registry's further prefixes). Derived from the declarations above.
 */
export const GATEWAY_PREFIXES = {
  identity: IdentityService.prefix,
  registry: RegistryService.prefix,
  resources: RegistryService.alsoAt.resources,
  lookup: RegistryService.alsoAt.lookup,
  billing: BillingService.prefix,
  provisioning: ProvisioningService.prefix,
  stacks: StacksService.prefix,
  cli: CliService.prefix,
  onboarding: RegistryService.alsoAt.onboarding,
  vault: VaultService.prefix,
  webhooks: EventsService.prefix,
  events: EventsService.alsoAt.events
} as const

/** A key of `GATEWAY_PREFIXES`. */
export type GatewayService = keyof typeof GATEWAY_PREFIXES
