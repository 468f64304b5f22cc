/**
 * `@core/contracts/routes`: the route catalogue without zod, for clients that must stay small (the
 * SDK in browsers and workers, decision 0173). Each catalogued route as a `RouteRef` (method, path,
 * content types, success status, gateway prefix) typed by its declaration, the gateway prefixes,
 * the path helpers and the device flow's constants. Nothing imported here imports zod; the schemas
 * stay in `@core/contracts`.
 *
 * @example
 * import { AuthorizationRouteRefs, buildPath } from "@core/contracts/routes"
 * const ref = AuthorizationRouteRefs.deleteGrant
 * `${ref.prefix}${buildPath(ref.path, { id: "grt_1" })}` // "/api/v1/iam/api/core/grants/grt_1"
 */
export * from "./generated/routeTable.js"
export { isUnderPrefix } from "./GatewayPrefixes.js"
export { routeRef, type RouteOf, type RouteRef, type RouteRefs } from "./RouteRefs.js"
export {
  buildPath,
  pathParamNames,
  successStatusOf,
  toOpenApiPath,
  type BodyInput,
  type HttpMethod,
  type ParamsOutput,
  type PathParamNames,
  type QueryInput,
  type ResponseBody,
  type RouteSpec,
  type SuccessBody,
  type SuccessStatus
} from "./Routes.js"
export { DEVICE_CLIENT_ID, DEVICE_CODE_GRANT, REFRESH_TOKEN_GRANT } from "./iam/device-constants.js"
