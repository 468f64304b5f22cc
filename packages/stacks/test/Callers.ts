import { Callers, Unauthorized } from "@core/kernel"
import { Effect, Layer } from "effect"

/**
 * A small `Callers` of the kernel's Tag standing in for identity in the catalogue's tests: bearer
 * `usr_*` tokens are users of `org_a` (`usr_member` a member, `usr_operator` an operator), `static`
 * is the service key, `core_a` an API key of `org_a` holding every permission.
 */
export const TestCallers = Layer.succeed(Callers, {
  resolve: (request) => {
    const key = request.headers["x-api-key"]
    if (key === "core_a") return Effect.succeed({ kind: "apikey", keyId: "key_a", organizationId: "org_a", platformId: "plt_a", permissions: ["*"] })
    if (key !== undefined) return Effect.fail(new Unauthorized({ message: "Invalid API key" }))
    const bearer = request.headers.authorization?.slice(7)
    if (bearer === undefined) return Effect.succeed(undefined)
    if (bearer === "static") return Effect.succeed({ kind: "service" })
    return Effect.succeed({ kind: "user", userId: bearer, sessionId: "ses_1", email: `${bearer}@example.com`, organizationId: "org_a", via: "bearer" })
  },
  isOperator: (userId) => Effect.succeed(userId === "usr_operator"),
  permissionsOf: (userId, organizationId) => Effect.succeed(organizationId === "org_a" && userId === "usr_member" ? ["*"] : undefined)
})
