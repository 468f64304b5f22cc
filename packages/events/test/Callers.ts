import { Callers, Unauthorized } from "@core/kernel"
import { Effect, Layer } from "effect"

/**
 * A small `Callers` standing in for identity: bearer `a_admin` (every permission in `org_a`),
 * `a_reader` (`events:read` only), `b_admin` (every permission in `org_b`), `nobody` (in no
 * organization), `static` the service key; API keys `core_a` (`webhooks:manage` and `events:read`
 * in `org_a`) and `core_a_ro` (`events:read`).
 */
const users: Record<string, { readonly organizationId: string | null; readonly permissions: ReadonlyArray<string> }> = {
  a_admin: { organizationId: "org_a", permissions: ["*"] },
  a_reader: { organizationId: "org_a", permissions: ["events:read"] },
  b_admin: { organizationId: "org_b", permissions: ["*"] },
  nobody: { organizationId: null, permissions: [] }
}

const keys: Record<string, ReadonlyArray<string>> = { core_a: ["webhooks:manage", "events:read"], core_a_ro: ["events:read"] }

export const TestCallers = Layer.succeed(Callers, {
  resolve: (request) => {
    const key = request.headers["x-api-key"]
    if (key !== undefined) {
      const permissions = keys[key]
      return permissions === undefined
        ? Effect.fail(new Unauthorized({ message: "Invalid API key" }))
        : Effect.succeed({ kind: "apikey", keyId: `key_${key}`, organizationId: "org_a", platformId: "plt_a", permissions })
    }
    const bearer = request.headers.authorization?.slice(7)
    if (bearer === undefined) return Effect.succeed(undefined)
    if (bearer === "static") return Effect.succeed({ kind: "service" })
    const user = users[bearer]
    if (user === undefined) return Effect.fail(new Unauthorized({ message: "Invalid session" }))
    return Effect.succeed({
      kind: "user",
      userId: `usr_${bearer}`,
      sessionId: "ses_1",
      email: `${bearer}@example.com`,
      organizationId: user.organizationId,
      via: "bearer",
      role: null,
      permissions: user.permissions
    })
  },
  isOperator: () => Effect.succeed(false),
  permissionsOf: (userId, organizationId) => {
    const user = users[userId.slice(4)]
    return Effect.succeed(user !== undefined && user.organizationId === organizationId ? user.permissions : undefined)
  }
})
