import { defineRoutes } from "@core/contracts"
import { Callers, Route, Unauthorized } from "@core/kernel"
import { RouteNode } from "@core/http/node"
import { Effect, Layer } from "effect"
import * as http from "node:http"
import { z } from "zod"
import { listening, platformNode, references, startNamed } from "./Targets.js"

/** The catalogued routes every target serves: a public ping, and one that needs a caller. */
const Routes = defineRoutes({
  ping: { method: "GET", path: "/ping", summary: "Ping", auth: "public", responses: { 200: z.object({ ok: z.boolean() }) } },
  me: {
    method: "GET",
    path: "/me",
    summary: "Who calls",
    auth: "caller",
    responses: { 200: z.object({ userId: z.string() }), 401: null }
  }
})

const handlers = [
  Route.handle(Routes.ping, () => Effect.succeed({ ok: true })),
  Route.handle(Routes.me, ({ caller }) => Effect.succeed({ userId: caller.kind === "user" ? caller.userId : caller.kind }))
]

/** A `Callers` that resolves a bearer at once (no store): the runner's cost, not identity's. */
const FakeCallers = Layer.succeed(Callers, {
  resolve: (request) => {
    const authorization = request.headers.authorization
    if (authorization === undefined) return Effect.succeed(undefined)
    if (!authorization.startsWith("Bearer usr_")) return Effect.fail(new Unauthorized({ message: "Invalid bearer" }))
    return Effect.succeed({
      kind: "user",
      userId: authorization.slice(7),
      sessionId: "ses_1",
      email: "bench@example.com",
      organizationId: null,
      via: "bearer"
    })
  },
  isOperator: () => Effect.succeed(false),
  permissionsOf: () => Effect.succeed(undefined)
})

/** Start one target on 127.0.0.1 and resolve its port. */
export const targets: Record<string, () => Promise<number>> = {
  "route-node": async () =>
    listening(http.createServer(await Effect.runPromise(RouteNode.listener(handlers).pipe(Effect.provide(FakeCallers))))),
  "platform-node": () => platformNode(Route.router(handlers), FakeCallers),
  "platform-node-untraced": () => platformNode(Route.router(handlers), FakeCallers, false),
  ...references("/ping", { ok: true })
}

await startNamed(targets)
