import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Iam } from "@core/contracts"
import { CoreConfig } from "@core/kernel"
import { Effect, Layer } from "effect"
import { Authentication } from "../accounts/Authentication.js"
import type { UserCaller } from "@core/kernel"
import { CliIdentity } from "./CliIdentity.js"
import { DeviceAuthorization, type DeviceAuthorizationOptions } from "./DeviceAuthorization.js"
import { OAuthError } from "./OAuthErrors.js"
import { RefreshTokens, type TokenGrant } from "./RefreshTokens.js"
import { requestFacts } from "../accounts/AuthRoutes.js"
import { CliWhoamiRouter } from "./CliWhoami.js"
import { decode, handleOAuthCause, oauthJson, params, publicBase, publicRoot, requestOrigin } from "./OAuthProtocol.js"

/** The path of the activation page (`verification_uri`), under the identity service's public base. */
export const ACTIVATION_PATH = "/device"

/** The gateway's identity prefix, for the RFC 8414 path-inserted metadata address. */
const GATEWAY_PREFIX = "/api/v1/iam"

const tokenBody = (grant: TokenGrant) => ({
  access_token: grant.accessToken,
  token_type: "bearer" as const,
  expires_in: grant.expiresIn,
  refresh_token: grant.refreshToken,
  ...(grant.scope === null ? {} : { scope: grant.scope })
})

const deviceCode = Effect.gen(function*() {
  const input = yield* Effect.flatMap(params, (values) =>
    decode(Iam.DeviceCodeRequest, values, { scope: OAuthError.invalidScope() }))
  const issued = yield* (yield* DeviceAuthorization).start({ clientId: input.client_id, scope: input.scope ?? null })
  const verificationUri = `${yield* publicBase}${ACTIVATION_PATH}`
  return oauthJson({
    device_code: issued.deviceCode,
    user_code: issued.userCode,
    verification_uri: verificationUri,
    verification_uri_complete: `${verificationUri}?user_code=${issued.userCode}`,
    expires_in: issued.expiresIn,
    interval: issued.interval,
    ...(issued.scope === null ? {} : { scope: issued.scope })
  })
})

const token = Effect.gen(function*() {
  const values = yield* params
  const facts = yield* requestFacts
  const grantType = values.grant_type
  if (grantType === undefined || grantType === "") return yield* OAuthError.invalidRequest("Missing parameter grant_type")
  if (grantType === Iam.DEVICE_CODE_GRANT) {
    const input = yield* decode(Iam.DeviceTokenRequest, values)
    const grant = yield* (yield* DeviceAuthorization).poll({ deviceCode: input.device_code, clientId: input.client_id }, facts)
    return oauthJson(tokenBody(grant))
  }
  if (grantType === Iam.REFRESH_TOKEN_GRANT) {
    const input = yield* decode(Iam.RefreshTokenRequest, values)
    const grant = yield* (yield* RefreshTokens).refresh({ refreshToken: input.refresh_token, clientId: input.client_id }, facts)
    return oauthJson(tokenBody(grant))
  }
  return yield* OAuthError.unsupportedGrantType()
})

/**
 * A write carried by the session cookie must come from this site: refused when the browser says
 * `Sec-Fetch-Site: cross-site`, or names an `Origin` that is neither the service's nor a trusted one.
 */
const refuseCrossSite = (caller: UserCaller) =>
  Effect.gen(function*() {
    if (caller.via !== "cookie") return
    const request = yield* HttpServerRequest.HttpServerRequest
    const config = yield* CoreConfig
    if (request.headers["sec-fetch-site"] === "cross-site") return yield* OAuthError.crossSite()
    const origin = request.headers.origin
    if (origin === undefined) return
    const trusted = new Set([
      requestOrigin(request, config.trustProxy),
      new URL(yield* publicBase).origin,
      new URL(config.publicUrl).origin,
      ...config.corsOrigins
    ])
    if (!trusted.has(origin)) return yield* OAuthError.crossSite()
  })

const decision = (which: "approve" | "deny") =>
  Effect.gen(function*() {
    const caller = yield* Effect.flatMap(Authentication, (auth) => auth.session).pipe(
      Effect.mapError(() => OAuthError.signInRequired())
    )
    yield* refuseCrossSite(caller)
    const input = yield* Effect.flatMap(params, (values) => decode(Iam.DeviceDecisionRequest, values))
    yield* (yield* DeviceAuthorization)[which](caller, input.user_code, yield* requestFacts)
    return oauthJson({ ok: true })
  })

const metadataAt = (base: string): Iam.AuthorizationServerMetadata => ({
  issuer: base,
  token_endpoint: `${base}/oauth/token`,
  device_authorization_endpoint: `${base}/oauth/device/code`,
  grant_types_supported: [Iam.DEVICE_CODE_GRANT, Iam.REFRESH_TOKEN_GRANT],
  response_types_supported: [],
  token_endpoint_auth_methods_supported: ["none"]
})

const metadata = Effect.map(publicBase, (base) => oauthJson(metadataAt(base)))

const gatewayMetadata = Effect.map(publicRoot, (root) => oauthJson(metadataAt(`${root}${GATEWAY_PREFIX}`)))

/**
 * The OAuth routes of device authorization (RFC 8628) and the refresh grant, answering OAuth
 * errors `{ error, error_description }` and `Cache-Control: no-store`; with the server metadata
 * (RFC 8414) at `/.well-known/oauth-authorization-server` (and at its path-inserted form for the
 * gateway's `/api/v1/iam` issuer).
 */
export const OAuthRoutes = HttpRouter.empty.pipe(
  HttpRouter.post("/oauth/device/code", deviceCode),
  HttpRouter.post("/oauth/device/token", token),
  HttpRouter.post("/oauth/token", token),
  HttpRouter.post("/oauth/device/authorize", decision("approve")),
  HttpRouter.post("/oauth/device/deny", decision("deny")),
  HttpRouter.get("/.well-known/oauth-authorization-server", metadata),
  HttpRouter.get(`/.well-known/oauth-authorization-server${GATEWAY_PREFIX}`, gatewayMetadata),
  HttpRouter.catchAllCause(handleOAuthCause)
)

/** The device authorization routes and `POST /api/v1/cli/whoami`. */
export const DeviceRouter = HttpRouter.concat(OAuthRoutes, CliWhoamiRouter)

/**
 * Device authorization, refresh tokens and the CLI's identity, with other device-code lifetimes
 * (tests, development). Requires the database (`SqlClient`), `Ids`, `CoreConfig`, the `AuditLog`
 * and `Authentication` ports, `Sessions` and `SessionContext` (accounts) and `ApiKeys` (authorization).
 */
export const deviceAuthorizationLayer = (options: DeviceAuthorizationOptions = {}) =>
  Layer.mergeAll(DeviceAuthorization.layerWith(options), CliIdentity.Default).pipe(Layer.provideMerge(RefreshTokens.Default))

/** Device authorization, refresh tokens and the CLI's identity with the lifetimes of DESIGN §5. */
export const DeviceAuthorizationLive = deviceAuthorizationLayer()
