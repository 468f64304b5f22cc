/**
 * @core/http — mount any Core service (an Effect `HttpApp`) on a runtime. The root exports the
 * runtime-neutral web-standard handler; runtimes have their own subpaths: `@core/http/node`,
 * `@core/http/web`, `@core/http/hono`, `@core/http/express`.
 */
export * as Web from "./web.js"
export type { Handler, WebHandler } from "./web.js"
