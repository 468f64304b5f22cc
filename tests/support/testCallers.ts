import { Callers, Unauthorized } from "@core/kernel"
import { Effect, Layer } from "effect"

/**
 * A small `Callers` of the same Tag standing in for identity. Organization `org_a`: `usr_owner`
 * (owner, `*`), `usr_admin` (`<area>:manage` and reads of the platform's areas), `usr_member` (their reads); organization `org_b`:
 * `usr_b_owner`. `usr_operator` is an operator; bearer `static` is the service key. API keys:
 * `core_a` (org_a, read), `core_a_manage` (org_a, read and manage), `core_none` (org_a, nothing),
 * `core_b` (org_b, read and manage).
 */
/** What reads and what writes the platform and what it keeps (entities, resources, features, secrets; decision 0596). */
const areas = ["platforms", "entities", "resources", "features", "secrets"]
const reads = areas.map((area) => `${area}:read`)
const manages = [...reads, ...areas.map((area) => `${area}:manage`)]

const users: Record<string, { readonly organizationId: string | null; readonly permissions?: ReadonlyArray<string> }> = {
  usr_owner: { organizationId: "org_a", permissions: ["*"] },
  usr_admin: { organizationId: "org_a", permissions: manages },
  usr_member: { organizationId: "org_a", permissions: reads },
  usr_b_owner: { organizationId: "org_b", permissions: ["*"] },
  usr_operator: { organizationId: null },
  usr_lonely: { organizationId: null }
}

const keys: Record<string, { readonly organizationId: string; readonly permissions: ReadonlyArray<string> }> = {
  core_a: { organizationId: "org_a", permissions: reads },
  core_a_manage: { organizationId: "org_a", permissions: manages },
  core_none: { organizationId: "org_a", permissions: [] },
  core_b: { organizationId: "org_b", permissions: manages }
}

export const TestCallers = Layer.succeed(Callers, {
  resolve: (request) => {
    const key = request.headers["x-api-key"]
    if (key !== undefined) {
      const found = keys[key]
      if (found === undefined) return Effect.fail(new Unauthorized({ message: "Invalid API key" }))
      return Effect.succeed({ kind: "apikey", keyId: `key_${key}`, organizationId: found.organizationId, platformId: "plt_x", permissions: [...found.permissions] })
    }
    const bearer = request.headers.authorization?.slice(7)
    if (bearer === undefined) return Effect.succeed(undefined)
    if (bearer === "static") return Effect.succeed({ kind: "service" })
    const user = users[bearer]
    if (user === undefined) return Effect.fail(new Unauthorized({ message: "Invalid session" }))
    return Effect.succeed({ kind: "user", userId: bearer, sessionId: `ses_${bearer}`, email: `${bearer}@example.com`, organizationId: user.organizationId, via: "bearer" })
  },
  isOperator: (userId) => Effect.succeed(userId === "usr_operator"),
  permissionsOf: (userId, organizationId) =>
    Effect.succeed(users[userId]?.organizationId === organizationId ? users[userId]?.permissions : undefined)
})
