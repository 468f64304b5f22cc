/** Where an HTTP upstream lives and how long an exchange with it waits: what both paths of `HttpUpstream` reach it with. */
import type * as http from "node:http"
import type * as https from "node:https"
import type { Pool } from "undici"

/** Where an upstream lives and the pools that reach it. */
export interface Target {
  readonly transport: typeof http | typeof https
  /** The keep-alive agent of `forward`. */
  readonly agent: http.Agent
  /** The undici pool of the Node path. */
  readonly pool: Pool
  readonly hostname: string
  readonly port: string
  /** `Host` of the upstream, with its port. */
  readonly host: string
  /** The base URL's path without a trailing slash (`""` for none). */
  readonly basePath: string
}

/** How long an exchange waits, in milliseconds (see `HttpUpstreamOptions`). */
export interface Timeouts {
  readonly timeoutMillis: number
  readonly idleMillis: number
}
