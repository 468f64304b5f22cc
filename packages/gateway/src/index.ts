/**
 * @core/gateway — the public entry point: the middleware chain and routing to upstreams.
 */
export * as Assemble from "./Assemble.js"
export * as Authentication from "./Authentication.js"
export * as Cors from "./Cors.js"
export * as CredentialCache from "./CredentialCache.js"
export * as Forwarding from "./Forwarding.js"
export * as Gateway from "./Gateway.js"
export * as HttpUpstream from "./HttpUpstream.js"
export * as IdentityResolver from "./IdentityResolver.js"
export * as Inbound from "./Inbound.js"
export * as Middleware from "./Middleware.js"
export * as Routes from "./Routes.js"
export * as Tracing from "./Tracing.js"
export * as Upstream from "./Upstream.js"
