/**
 * `@core/sdk/routes`: the zod-free route table (`@core/contracts/routes`: every catalogued route's
 * ref, `buildPath`, the gateway prefixes, the device flow's constants), carried inside the SDK's
 * package so that installing the SDK alone is enough (decision 0601).
 *
 * @example
 * import { createClient } from "@core/sdk"
 * import { AccountRouteRefs } from "@core/sdk/routes"
 * const session = await createClient({ baseUrl, token }).call(AccountRouteRefs.getSession, {})
 */
export * from "@core/contracts/routes"
