import replyFrom from "@fastify/reply-from"
import { CredentialCache } from "@core/gateway"
import Fastify from "fastify"
import { createHash } from "node:crypto"
import type { AddressInfo } from "node:net"

const PREFIX = "/api/v1/iam"

/** What the reference keeps per credential: the identity service's answer, until it expires. */
interface Answer {
  readonly session: unknown
  readonly until: number
}

/**
 * The reference proxy of the gateway benchmark: Fastify 5 and `@fastify/reply-from` doing the
 * gateway's bearer check with the same cache semantics (keyed by the token's SHA-256, kept
 * `CredentialCache.TTL_MILLIS`, refusals cached too, filled on a miss by
 * `GET /api/core/session` on the identity service), then forwarding `/api/v1/iam/*` to the
 * identity service with the prefix stripped. It does nothing else the gateway does (no request id,
 * rate limit, security headers, signed identity or metrics): it is the floor a proxy in Node
 * reaches with a well-known stack. Resolves the port it listens on (127.0.0.1).
 *
 * @example
 * const port = await referenceProxy("http://127.0.0.1:4001")
 */
export const referenceProxy = async (iamUrl: string): Promise<number> => {
  const answers = new Map<string, Answer>()

  const sessionOf = async (token: string): Promise<unknown> => {
    const key = createHash("sha256").update(token).digest("hex")
    const known = answers.get(key)
    if (known !== undefined && known.until > Date.now()) return known.session
    const response = await fetch(`${iamUrl}/api/core/session`, { headers: { authorization: `Bearer ${token}` } })
    if (response.status !== 200 && response.status !== 401) throw new Error(`identity service answered ${response.status}`)
    const session: unknown = response.status === 200 ? await response.json() : (await response.arrayBuffer(), null)
    answers.set(key, { session, until: Date.now() + CredentialCache.TTL_MILLIS })
    return session
  }

  const app = Fastify({ logger: false })
  await app.register(replyFrom, { base: iamUrl })
  app.all(`${PREFIX}/*`, async (request, reply) => {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")?.[1]
    if (token === undefined || (await sessionOf(token)) === null) {
      return reply.code(401).send({ error: { code: "UNAUTHORIZED", message: "Invalid or expired session", details: null } })
    }
    return reply.from(request.url.slice(PREFIX.length) || "/")
  })
  await app.listen({ port: 0, host: "127.0.0.1" })
  return (app.server.address() as AddressInfo).port
}
