/**
 * @core/gateway — the public entry point: the middleware chain and routing to upstreams.
 */
export * as Forwarding from "./Forwarding.js"
export * as Gateway from "./Gateway.js"
export * as Inbound from "./Inbound.js"
export * as Middleware from "./Middleware.js"
export * as Routes from "./Routes.js"
export * as Upstream from "./Upstream.js"
