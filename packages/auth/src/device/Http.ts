import type { HttpServerRequest } from "@effect/platform"
import { Iam } from "@core/contracts"
import { CoreConfig, PublicUrl, RequestContext, Route, type UserCaller } from "@core/kernel"
import { Effect, Layer } from "effect"
import { CliIdentity } from "./CliIdentity.js"
import { CliWhoamiHandlers } from "./CliWhoami.js"
import { DeviceAuthorization, type DeviceAuthorizationOptions } from "./DeviceAuthorization.js"
import { OAuthError } from "./OAuthErrors.js"
import { oauthJson, oauthRenderer, publicBase, publicRoot } from "./OAuthProtocol.js"
import { RefreshTokens, type TokenGrant } from "./RefreshTokens.js"

const Routes = Iam.DeviceRoutes

/** The path of the activation page (`verification_uri`), under the identity service's public base. */
export const ACTIVATION_PATH = Iam.WebRoutes.devicePage.path

/** The gateway's identity prefix (`/api/v1/iam`), as the RFC 8414 path-inserted metadata address carries it. */
const GATEWAY_PREFIX = Routes.gatewayAuthorizationServerMetadata.path.slice(Routes.authorizationServerMetadata.path.length)

const tokenBody = (grant: TokenGrant): Iam.TokenResponse => ({
  access_token: grant.accessToken,
  token_type: "bearer",
  expires_in: grant.expiresIn,
  refresh_token: grant.refreshToken,
  ...(grant.scope === null ? {} : { scope: grant.scope })
})

const requestDeviceCode = (input: Iam.DeviceCodeRequest) =>
  Effect.gen(function*() {
    const device = yield* DeviceAuthorization
    const issued = yield* device.start({ clientId: input.client_id, scope: input.scope ?? null })
    const verificationUri = `${yield* publicBase}${ACTIVATION_PATH}`
    return oauthJson({
      device_code: issued.deviceCode,
      user_code: issued.userCode,
      verification_uri: verificationUri,
      verification_uri_complete: `${verificationUri}?user_code=${issued.userCode}`,
      expires_in: issued.expiresIn,
      interval: issued.interval,
      ...(issued.scope === null ? {} : { scope: issued.scope })
    } satisfies Iam.DeviceCodeResponse)
  })

/** Both grants at both token routes: the device code poll and the refresh. */
const token = (input: Iam.TokenRequest) =>
  Effect.gen(function*() {
    const facts = yield* RequestContext.facts
    if (input.grant_type === Iam.DEVICE_CODE_GRANT) {
      const device = yield* DeviceAuthorization
      return oauthJson(tokenBody(yield* device.poll({ deviceCode: input.device_code, clientId: input.client_id }, facts)))
    }
    const refreshTokens = yield* RefreshTokens
    return oauthJson(tokenBody(yield* refreshTokens.refresh({ refreshToken: input.refresh_token, clientId: input.client_id }, facts)))
  })

/**
 * A write carried by the session cookie must come from this site: refused when the browser says
 * `Sec-Fetch-Site: cross-site`, or names an `Origin` that is neither the service's nor a trusted one.
 */
const refuseCrossSite = (caller: UserCaller, request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (caller.via !== "cookie") return
    const config = yield* CoreConfig
    if (request.headers["sec-fetch-site"] === "cross-site") return yield* OAuthError.crossSite()
    const origin = request.headers.origin
    if (origin === undefined) return
    const trusted = new Set([
      PublicUrl.requestOrigin(request, config.trustProxy),
      new URL(yield* publicBase).origin,
      new URL(config.publicUrl).origin,
      ...config.corsOrigins
    ])
    if (!trusted.has(origin)) return yield* OAuthError.crossSite()
  })

const decide = (
  which: "approve" | "deny",
  { body, caller, request }: Route.Input<typeof Routes.authorizeDevice | typeof Routes.denyDevice>
) =>
  Effect.gen(function*() {
    yield* refuseCrossSite(caller, request)
    const device = yield* DeviceAuthorization
    yield* device[which](caller, body.user_code, yield* RequestContext.facts)
    return oauthJson({ ok: true } satisfies Iam.DeviceDecisionResponse)
  })

const metadataAt = (base: string): Iam.AuthorizationServerMetadata => ({
  issuer: base,
  token_endpoint: `${base}${Routes.token.path}`,
  device_authorization_endpoint: `${base}${Routes.requestDeviceCode.path}`,
  grant_types_supported: [Iam.DEVICE_CODE_GRANT, Iam.REFRESH_TOKEN_GRANT],
  response_types_supported: [],
  token_endpoint_auth_methods_supported: ["none"]
})

/**
 * The OAuth routes of device authorization (RFC 8628) and the refresh grant, form-encoded or JSON,
 * answering `Cache-Control: no-store`; with the server metadata (RFC 8414) at its own address and
 * at the path-inserted one of the gateway's `/api/v1/iam` issuer.
 */
export const OAuthHandlers = Route.rendered(oauthRenderer, [
  Route.handle(Routes.requestDeviceCode, ({ body }) => requestDeviceCode(body)),
  Route.handle(Routes.deviceToken, ({ body }) => token(body)),
  Route.handle(Routes.token, ({ body }) => token(body)),
  Route.handle(Routes.authorizeDevice, (input) => decide("approve", input)),
  Route.handle(Routes.denyDevice, (input) => decide("deny", input)),
  Route.handle(Routes.authorizationServerMetadata, () => Effect.map(publicBase, (base) => oauthJson(metadataAt(base)))),
  Route.handle(
    Routes.gatewayAuthorizationServerMetadata,
    () => Effect.map(publicRoot, (root) => oauthJson(metadataAt(`${root}${GATEWAY_PREFIX}`)))
  )
] as const)

/** Every route of `Iam.DeviceRoutes`: the OAuth routes and `POST /api/v1/cli/whoami`. */
export const DeviceHandlers = [...OAuthHandlers, ...CliWhoamiHandlers] as const

/** The device authorization routes and `POST /api/v1/cli/whoami`. */
export const DeviceRouter = Route.router(DeviceHandlers)

/**
 * Device authorization, refresh tokens and the CLI's identity, with other device-code lifetimes
 * (tests, development). Requires the database (`SqlClient`), `Ids`, `CoreConfig`, the `AuditLog`
 * port, `Sessions` and `SessionContext` (accounts) and `ApiKeys` (authorization).
 */
export const deviceAuthorizationLayer = (options: DeviceAuthorizationOptions = {}) =>
  Layer.mergeAll(DeviceAuthorization.layerWith(options), CliIdentity.Default).pipe(Layer.provideMerge(RefreshTokens.Default))

/** Device authorization, refresh tokens and the CLI's identity with the lifetimes of DESIGN §5. */
export const DeviceAuthorizationLive = deviceAuthorizationLayer()
