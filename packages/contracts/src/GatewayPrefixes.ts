/**
 * The prefix the gateway serves each service under (seed 000, "Gateway routing"): a request to
 * `<prefix>/<rest>` reaches the service as `/<rest>`. Declared once, here, for everything that
 * writes a gateway path: the route table of `@core/contracts/routes` (and so the SDK), and the
 * gateway's routing table and merged OpenAPI document.
 *
 * No zod here: `@core/contracts/routes` re-exports it.
 */
export const GATEWAY_PREFIXES = {
  /** The identity service (`IAM`): accounts, sessions, organizations, authorization, device login. */
  identity: "/api/v1/iam",
  /** The registry (`REGISTRY`): platforms. Its catalogue declares the full gateway path. */
  registry: "/api/v1/platforms",
  /** The registry's resource family (`REGISTRY`), forwarded with the prefix kept (decision 0242). */
  resources: "/api/v1/resources",
  /** The registry's lookup by edge name (`REGISTRY`), forwarded with the prefix kept. */
  lookup: "/api/v1/lookup",
  /** The billing service (`BILLING`). */
  billing: "/api/v1/billing",
  /** The provisioning service (`PROVISIONING`). */
  provisioning: "/api/v1/provisioning",
  /** The stacks service (`STACKS`). */
  stacks: "/api/v1/stacks",
  /** The command line's service (`CLI`). */
  cli: "/api/v1/cli",
  /** Onboarding, served by the registry (`REGISTRY`). */
  onboarding: "/api/v1/onboarding",
  /** The vault tool server (`VAULT`): MCP at `/mcp`, forwarded with the path kept (DESIGN §9). */
  vault: "/mcp"
} as const

/** A service with a gateway prefix. */
export type GatewayService = keyof typeof GATEWAY_PREFIXES

/** Whether a path lies under a prefix at a segment boundary (`/a/b` is under `/a`, `/ab` is not). */
export const isUnderPrefix = (path: string, prefix: string): boolean => path === prefix || path.startsWith(`${prefix}/`)

/**
 * A declared path as a client reaches it through the gateway: the path itself when it already lies
 * under the service's prefix (the registry's `/api/v1/platforms/…`), else the prefix before it
 * (`/api/v1/provisioning` + `/api/v1/provision/jobs`, which the gateway forwards as the documented
 * path; `/api/v1/iam` for identity's `/`). The SDK, the OpenAPI document and the API reference all
 * write a route's path this way (decision 0610).
 *
 * @example underGatewayPrefix("/api/v1/provisioning", "/api/v1/provision/jobs") // "/api/v1/provisioning/api/v1/provision/jobs"
 */
export const underGatewayPrefix = (prefix: string, path: string): string =>
  prefix === "" || isUnderPrefix(path, prefix) ? path : path === "/" ? prefix : `${prefix}${path}`
