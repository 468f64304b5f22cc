import type { Transport } from "../transport.js"

/** Options of `client.health()`. */
export interface HealthOptions {
  readonly signal?: AbortSignal
}

/**
 * `GET /health`: the liveness answer, as text. Fails with a `CoreApiError` when the server answers
 * a non-2xx status and `CoreConnectionError` when it cannot be reached.
 */
export const health = (transport: Transport) => (options: HealthOptions = {}): Promise<string> =>
  transport.request<string>("GET", "/health", {
    responseType: "text",
    ...(options.signal === undefined ? {} : { signal: options.signal })
  })
