import type { Outcome } from "../oauth.js"

/** The base path of the identity service behind the gateway. */
export const IAM_PREFIX = "/api/v1/iam"

/** How long `core` waits for one answer of the identity service, in seconds (see `oauth.ts`). */
const TIMEOUT_SECONDS = 15

/**
 * The likeliest reason a login request to `url` (under the identity address `iamUrl`) came to
 * `outcome`, in a sentence a new user can act on; undefined when there is nothing better to say
 * than the status. Covers what people meet first: the server not running or on another port, a
 * host name that does not resolve, an address without `/api/v1/iam`, and another program's 404.
 */
export const likelyCause = (iamUrl: string, outcome: Exclude<Outcome<unknown>, { _tag: "Ok" }>): string | undefined => {
  const address = new URL(iamUrl)
  if (outcome._tag === "Unreachable") {
    switch (outcome.reason) {
      case "ECONNREFUSED":
        return `nothing listens at ${address.host} (connection refused): the server is not running (start it with: npx core-server start), or the port is wrong.`
      case "ENOTFOUND":
      case "EAI_AGAIN":
        return `the host name ${address.hostname} does not resolve (${outcome.reason}): check the address.`
      case "timed out":
        return `no answer from ${address.host} within ${TIMEOUT_SECONDS} s: the server is stuck, or a firewall drops the connection.`
      default:
        return `the connection to ${address.host} failed (${outcome.reason}).`
    }
  }
  if (outcome.status !== 404) return undefined
  const path = address.pathname.replace(/\/+$/, "")
  if (!path.endsWith(IAM_PREFIX)) {
    return `the address lacks the identity service's base path ${IAM_PREFIX}. Try: core login --iam-url ${address.origin}${path}${IAM_PREFIX}`
  }
  if (outcome._tag === "HttpError" && !outcome.envelope) {
    return `the server at ${address.origin} is not a Core server (its 404 is not Core's error envelope): check the address and the port.`
  }
  return undefined
}

/** The lines under a failed login message: the request tried, and the likely cause when there is one. */
export const causeLines = (iamUrl: string, url: string, outcome: Exclude<Outcome<unknown>, { _tag: "Ok" }>): ReadonlyArray<string> => {
  const cause = likelyCause(iamUrl, outcome)
  return [`Tried: POST ${url}`, ...(cause === undefined ? [] : [`Likely cause: ${cause}`])]
}
