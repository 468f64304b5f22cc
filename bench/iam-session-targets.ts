import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { AccountsHandlers, AccountsLive, AccountsRouter, AuthorizationLive, IamMigrations, OutboxMailer } from "@core/auth"
import { DEFAULT_ROLE_PERMISSIONS, DEFAULT_ROLES, defineRoute } from "@core/contracts"
import * as CoreNode from "@core/http/node"
import { Callers, CoreConfig, Ids, Route } from "@core/kernel"
import { TestDatabase } from "@core/kernel/testing"
import { Effect, Layer, ManagedRuntime } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { z } from "zod"

/** The foundation's trivial route, the reference of the ratio. */
const trivial = HttpRouter.empty.pipe(HttpRouter.get("/", Effect.succeed(HttpServerResponse.unsafeJson({ hello: "world" }))))

/** The kernel runner's trivial catalogued route, the reference of the ratio. */
const ping = defineRoute({ method: "GET", path: "/", summary: "Ping", auth: "public", responses: { 200: z.object({ hello: z.string() }) } })

/** A public route needs no caller; the runner's type still asks for the port. */
const NoCallers = Layer.succeed(Callers, {
  resolve: () => Effect.succeed(undefined),
  isOperator: () => Effect.succeed(false),
  permissionsOf: () => Effect.succeed(undefined)
})

/** A `node:http` server on 127.0.0.1 around a request listener; answers its port. */
const listen = (listener: http.RequestListener) =>
  new Promise<number>((resolve) => {
    const server = http.createServer(listener)
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port))
  })

/** The accounts routes over a fresh migrated database (`pglite`, or `pg` from `CORE_TEST_DATABASE_URL`). */
const identity = (driver: "pglite" | "pg") =>
  AccountsLive.pipe(
    Layer.provideMerge(OutboxMailer.layer),
    Layer.provideMerge(AuthorizationLive),
    Layer.provideMerge(Layer.mergeAll(
      TestDatabase.layer([IamMigrations], { driver }),
      CoreConfig.layer({
        NODE_ENV: "production",
        CORE_SECRET: "bench-secret-bench-secret-bench-secret-01",
        CORE_STATIC_API_KEY: "bench-static-key-0123456789abcdef"
      }),
      Ids.layer
    )),
    Layer.orDie
  )

const credentials = { email: "bench@example.com", password: "bench password 1" }

/** Make the signed-up user an admin of a tenant organization (its next session starts there). */
const joinOrganization = (userId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const org = yield* Ids.make("org")
    yield* sql`INSERT INTO iam.organizations (id, name, slug, platform_id) VALUES (${org}, 'Bench', 'bench', ${yield* Ids.make("plt")})`
    for (const role of DEFAULT_ROLES) {
      yield* sql`INSERT INTO iam.role_mappings (organization_id, role, permissions)
        VALUES (${org}, ${role}, ${JSON.stringify(DEFAULT_ROLE_PERMISSIONS[role])}::jsonb)`
    }
    yield* sql`INSERT INTO iam.members (id, organization_id, user_id, role) VALUES (${yield* Ids.make("mem")}, ${org}, ${userId}, 'admin')`
  }).pipe(Effect.orDie)

const post = async (url: string, body: unknown) => {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`)
  return response.json() as Promise<{ token: string; user: { id: string } }>
}

/** The accounts routes on `@core/http/node` (`@effect/platform-node`), or on the kernel's Node runner. */
const startIdentity = async (driver: "pglite" | "pg", runner: "platform" | "kernel" = "platform") => {
  const runtime = ManagedRuntime.make(identity(driver))
  const context = (await runtime.runtime()).context
  const port = runner === "kernel"
    ? await listen(await Effect.runPromise(CoreNode.RouteNode.listener(AccountsHandlers).pipe(Effect.provide(context))))
    : (await CoreNode.serve(AccountsRouter, { layer: Layer.succeedContext(context) })).port
  const url = `http://127.0.0.1:${port}`
  const { user } = await post(`${url}/api/auth/sign-up/email`, { name: "Bench", ...credentials })
  await runtime.runPromise(joinOrganization(user.id))
  const { token } = await post(`${url}/api/auth/sign-in/email`, credentials)
  return `${port} ${token}`
}

/** Start one target on 127.0.0.1 and answer `<port> [<bearer>]`. */
export const targets: Record<string, () => Promise<string>> = {
  trivial: async () => `${(await CoreNode.serve(trivial)).port}`,
  "core-session-pglite": () => startIdentity("pglite"),
  "core-session-pg": () => startIdentity("pg"),
  "kernel-trivial": async () =>
    `${await listen(await Effect.runPromise(CoreNode.RouteNode.listener([Route.handle(ping, () => Effect.succeed({ hello: "world" }))]).pipe(Effect.provide(NoCallers))))}`,
  "kernel-session-pglite": () => startIdentity("pglite", "kernel")
}

/**
 * Run as a child: print `<port> [<bearer>]`, then answer `mark` (start counting CPU time) and `cpu`
 * (the CPU microseconds spent since the mark) on stdin, so the bench can divide by requests served.
 */
const name = process.argv[2]
if (name !== undefined) {
  const start = targets[name]
  if (start === undefined) throw new Error(`unknown target ${name}; one of ${Object.keys(targets).join(", ")}`)
  process.stdout.write(`${await start()}\n`)
  let mark = process.cpuUsage()
  process.stdin.setEncoding("utf8").on("data", (data: string) => {
    for (const command of data.split("\n")) {
      if (command === "mark") mark = process.cpuUsage()
      if (command === "cpu") {
        const used = process.cpuUsage(mark)
        process.stdout.write(`${used.user + used.system}\n`)
      }
    }
  })
}
