import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Duration, Effect } from "effect"

/** One dependency `/ready` asks: it succeeds when the dependency answers. */
export interface ReadinessCheck {
  readonly name: string
  readonly check: Effect.Effect<unknown, unknown>
  /**
   * Whether the server cannot serve without it (`/ready` 503 when it fails). An optional one
   * (Redis: every use has an in-process fallback) failing makes the server `degraded`, still 200.
   * @default true
   */
  readonly required?: boolean
}

/** How long `/ready` waits for each check. @default 2 seconds */
export const CHECK_TIMEOUT = Duration.seconds(2)

/** The database answers `SELECT 1`. */
export const databaseCheck: Effect.Effect<ReadinessCheck, never, SqlClient.SqlClient> = Effect.map(
  SqlClient.SqlClient,
  (sql) => ({ name: "database", check: sql`SELECT 1` })
)

/**
 * The body of `/ready`: `{ status, checks: { <name>: "ok" | "error" | "timeout" } }`; `degraded`
 * when only optional checks fail.
 */
export interface Readiness {
  readonly status: "ready" | "degraded" | "unavailable"
  readonly checks: Readonly<Record<string, "ok" | "error" | "timeout">>
}

const statusOf = (
  checks: ReadonlyArray<ReadinessCheck>,
  results: ReadonlyArray<readonly [string, "ok" | "error" | "timeout"]>
): Readiness["status"] => {
  const failed = checks.filter((_, index) => results[index][1] !== "ok")
  if (failed.length === 0) return "ready"
  return failed.every((check) => check.required === false) ? "degraded" : "unavailable"
}

/** Run every check at once, each under `CHECK_TIMEOUT`. */
export const readiness = (checks: ReadonlyArray<ReadinessCheck>): Effect.Effect<Readiness> =>
  Effect.forEach(
    checks,
    ({ check, name }) =>
      check.pipe(
        Effect.timeoutFail({ duration: CHECK_TIMEOUT, onTimeout: () => "timeout" as const }),
        Effect.as("ok" as const),
        Effect.catchAll((error) => Effect.succeed(error === "timeout" ? "timeout" as const : "error" as const)),
        Effect.catchAllDefect(() => Effect.succeed("error" as const)),
        Effect.map((result) => [name, result] as const)
      ),
    { concurrency: "unbounded" }
  ).pipe(
    Effect.map((results) => ({
      status: statusOf(checks, results),
      checks: Object.fromEntries(results)
    }))
  )

const noStore = { "cache-control": "no-store" }

/** `GET /health`: liveness, 200 `ok` as `text/plain` as soon as the process listens. */
const liveness = HttpRouter.get("/health", Effect.succeed(HttpServerResponse.text("ok", { headers: noStore })))

/**
 * `GET /health` (liveness: 200 `ok`, `text/plain`) and `GET /ready` (200 when every required
 * check answers, `ready` or `degraded`, else 503, with the `Readiness` body).
 */
export const routes = (checks: ReadonlyArray<ReadinessCheck>) =>
  HttpRouter.empty.pipe(
    liveness,
    HttpRouter.get(
      "/ready",
      Effect.map(readiness(checks), (body) =>
        HttpServerResponse.unsafeJson(body, {
          status: body.status === "unavailable" ? 503 : 200,
          headers: noStore
        }))
    )
  )

/**
 * What answers while the database opens and migrates: `/health` is live (200 `ok`) and `/ready`
 * is 503 `{ status: "starting", checks: { database: "starting" } }`.
 */
export const startingRoutes = HttpRouter.empty.pipe(
  liveness,
  HttpRouter.get(
    "/ready",
    Effect.succeed(
      HttpServerResponse.unsafeJson({ status: "starting", checks: { database: "starting" } }, { status: 503, headers: noStore })
    )
  )
)
