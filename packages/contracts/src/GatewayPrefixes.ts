/**
 * The path helpers of the gateway's prefixes, without zod (`@core/contracts/routes` re-exports
 * them). The prefixes themselves are declared with their services (`ServiceDeclarations.ts`).
 */

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
