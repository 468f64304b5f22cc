import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Database, ErrorResponse } from "../src/index.js"
import { type HttpHarness, makeHttpHarness, TestDatabase } from "../src/testing/index.js"

const SECRET = "s3cret-parameter-value"

/** Routes whose statements fail in the database, each with a parameter that must stay out of the logs. */
const app = HttpRouter.empty.pipe(
  HttpRouter.get("/json", Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT ${`{"a":"\\ud800","s":"${SECRET}"}`}::jsonb`).pipe(
    Effect.orDie,
    Effect.as(HttpServerResponse.empty())
  )),
  HttpRouter.get("/uuid", Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT ${SECRET}::uuid`).pipe(
    Effect.as(HttpServerResponse.empty())
  )),
  HttpRouter.catchAllCause(ErrorResponse.handleCause),
  HttpRouter.toHttpApp,
  Effect.runSync
)

for (const driver of TestDatabase.drivers) {
  describe(`the log of a failed statement on ${driver}`, () => {
    let harness: HttpHarness<SqlClient.SqlClient>
    beforeAll(async () => {
      harness = await makeHttpHarness(app, TestDatabase.layer([], { driver }) as Layer.Layer<SqlClient.SqlClient>)
    })
    afterAll(() => harness.dispose())

    const logged = (path: string) => harness.logs.filter((line) => line.includes(`"${path}"`))

    it("carries the database's own message and SQLSTATE, as a defect or a failure, never the parameters", async () => {
      const json = await harness.fetch("/json")
      expect(json.status).toBe(500)
      const [line] = logged("/json")
      expect(line).toContain("unhandled request failure")
      expect(JSON.parse(line).annotations).toContainEqual(["database", "22P02 invalid input syntax for type json"])

      const uuid = await harness.fetch("/uuid")
      expect(uuid.status).toBe(500)
      const [other] = logged("/uuid")
      expect(JSON.parse(other).annotations).toContainEqual(["database", `22P02 invalid input syntax for type uuid: "…"`])
      expect(harness.logs.join("\n")).not.toContain(SECRET)
    })
  })
}

describe("Database.failureOf", () => {
  it("keeps quoted identifiers, elides quoted values and bounds the length", async () => {
    const { safeMessage } = await import("../src/internal/databaseFailure.js")
    expect(safeMessage(`duplicate key value violates unique constraint "users_email_key"`))
      .toBe(`duplicate key value violates unique constraint "users_email_key"`)
    expect(safeMessage(`value "99999999999" is out of range for type integer`)).toBe(`value "…" is out of range for type integer`)
    expect(safeMessage("x".repeat(1000))).toHaveLength(301)
    expect(Database.failureOf).toBeTypeOf("function")
  })
})
