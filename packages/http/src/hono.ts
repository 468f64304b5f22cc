import type { Context, Hono } from "hono"
import { routePath } from "hono/route"
import type { Handler } from "./internal/nodeBridge.js"
import { stripPrefix } from "./web.js"

const normalizePrefix = (prefix: string): string => `/${prefix.replace(/^\/+|\/+$/g, "")}`.replace(/^\/$/, "")

/** The path the matched route was registered under, without its wildcard (`/api/core/*` → `/api/core`). */
const mountedAt = (c: Context): string => routePath(c).replace(/\/?\*$/, "")

/**
 * Mount a web handler in a Hono app under `prefix`: the service sees its own paths
 * (`/core/hello` arrives as `/hello`), the query string and body pass through unchanged.
 * Works inside `app.route(...)` sub-apps too.
 *
 * @example
 * const app = new Hono()
 * Hono.mount(app, "/core", Web.make(service, ServiceLive).handler)
 */
export const mount = <A extends Hono<any, any, any>>(app: A, prefix: string, handler: Handler): A => {
  const base = normalizePrefix(prefix)
  const forward = (c: Context) => handler(stripPrefix(c.req.raw, mountedAt(c)))
  if (base !== "") app.all(base, forward)
  app.all(`${base}/*`, forward)
  return app
}
