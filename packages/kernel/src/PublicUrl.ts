import { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { type Configuration, CoreConfig } from "./Config.js"

/**
 * The addresses a service publishes — an OAuth `issuer`, a `verification_uri`, a link to one of its
 * pages — are the public ones (decision 0577): `CORE_PUBLIC_URL` when it is set; else the origin the
 * request was sent to, from `X-Forwarded-Host`/`-Proto` only when proxies are trusted
 * (`CORE_TRUST_PROXY`), else from its `Host`. Never the default `http://localhost:<PORT>`, which
 * names the process's own port (an internal one behind the gateway).
 */

const PREFIX = /^(?:\/[A-Za-z0-9._~-]+){1,16}$/
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/

const firstOf = (header: string | undefined) => header?.split(",")[0]?.trim()

const absoluteUrl = (url: string): URL | undefined => {
  try {
    return url.startsWith("/") ? undefined : new URL(url)
  } catch {
    return undefined
  }
}

/**
 * The origin a request was sent to: `X-Forwarded-Host`/`-Proto` when proxies are trusted, else its
 * `Host` (a web request's absolute URL when it has none); a host that is not one is ignored.
 */
export const requestOrigin = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean): string =>
  originOf(request.headers, trustProxy, absoluteUrl(request.originalUrl))

/**
 * `requestOrigin` from a request's headers alone (the gateway's Node path): `X-Forwarded-Host`/`-Proto`
 * when proxies are trusted, else `Host`, else the absolute URL's when there is one, else `localhost`.
 */
export const originOf = (
  headers: Readonly<Record<string, string | undefined>>,
  trustProxy: boolean,
  absolute?: URL
): string => {
  const forwardedHost = trustProxy ? firstOf(headers["x-forwarded-host"]) : undefined
  const forwardedProto = trustProxy ? firstOf(headers["x-forwarded-proto"])?.toLowerCase() : undefined
  const host = [forwardedHost, headers.host, absolute?.host].find((value) => value !== undefined && HOST.test(value))
  const proto = forwardedProto === "http" || forwardedProto === "https" ? forwardedProto : absolute?.protocol.slice(0, -1) ?? "http"
  return `${proto}://${host ?? "localhost"}`
}

/** `rootOf` from a request's headers alone. */
export const rootOfHeaders = (headers: Readonly<Record<string, string | undefined>>, config: Pick<Configuration, "publicUrl" | "publicUrlSet" | "trustProxy">): string =>
  config.publicUrlSet ? config.publicUrl.replace(/\/+$/, "") : originOf(headers, config.trustProxy)

/** The public root for a request: `CORE_PUBLIC_URL` when set, else the request's origin; no trailing slash. */
export const rootOf = (request: HttpServerRequest.HttpServerRequest, config: Configuration): string =>
  config.publicUrlSet ? config.publicUrl.replace(/\/+$/, "") : requestOrigin(request, config.trustProxy)

/**
 * The public root followed by the gateway's `X-Forwarded-Prefix` (`/api/v1/iam`) when the request
 * came through it (a prefix that is not a plain path is ignored): where a service behind the gateway
 * is reached.
 */
export const baseOf = (request: HttpServerRequest.HttpServerRequest, config: Configuration): string => {
  const prefix = firstOf(request.headers["x-forwarded-prefix"])?.replace(/\/+$/, "")
  return `${rootOf(request, config)}${prefix !== undefined && PREFIX.test(prefix) ? prefix : ""}`
}

/** `rootOf` the current request under this process's configuration. */
export const root: Effect.Effect<string, never, HttpServerRequest.HttpServerRequest | CoreConfig> = Effect.zipWith(
  HttpServerRequest.HttpServerRequest,
  CoreConfig,
  rootOf
)

/** `baseOf` the current request under this process's configuration. */
export const base: Effect.Effect<string, never, HttpServerRequest.HttpServerRequest | CoreConfig> = Effect.zipWith(
  HttpServerRequest.HttpServerRequest,
  CoreConfig,
  baseOf
)
