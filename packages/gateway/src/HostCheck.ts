/** The names of this machine a browser may use for a server on it. */
const LOOPBACK: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"])

const hostnameOf = (authority: string): string | undefined => {
  try {
    return new URL(`http://${authority}`).hostname.toLowerCase()
  } catch {
    return undefined
  }
}

/** What the check knows of the deployment. */
export interface HostPolicyOptions {
  /** `CORE_PUBLIC_URL` (or its default `http://localhost:<PORT>`): its host is this server's name. */
  readonly publicUrl: string
  /** `CORE_TRUST_PROXY`: the host the client used is the first `X-Forwarded-Host`. */
  readonly trustProxy: boolean
}

/**
 * DNS rebinding protection for a route that asks for it (`checksHost`: `/mcp`, as the MCP
 * transport specification requires; decision 0607). A page of another site whose name was made to
 * resolve to this server reaches it with its own name in `Host` and its own `Origin` (which CORS
 * therefore lets through as same-origin): the request is refused unless `Host` names this server —
 * the host of `CORE_PUBLIC_URL` or a loopback name (`localhost`, `127.0.0.1`, `[::1]`), any port.
 * Another `Origin` is refused by CORS already. A request without `Host` is no browser's. Answers
 * why it is refused, or `undefined`.
 */
export const policy = (options: HostPolicyOptions) => {
  const publicHost = new URL(options.publicUrl).hostname.toLowerCase()
  const isOwn = (hostname: string | undefined) => hostname !== undefined && (LOOPBACK.has(hostname) || hostname === publicHost)
  return (exchange: { readonly headers: Readonly<Record<string, string | undefined>> }): string | undefined => {
    const forwarded = options.trustProxy ? exchange.headers["x-forwarded-host"]?.split(",")[0]?.trim() : undefined
    const host = forwarded ?? exchange.headers.host
    if (host !== undefined && !isOwn(hostnameOf(host))) {
      return `Host ${JSON.stringify(host.slice(0, 100))} is not this server's name (DNS rebinding protection): ` +
        "use the address in CORE_PUBLIC_URL or localhost"
    }
    return undefined
  }
}
