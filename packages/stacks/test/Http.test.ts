import { Stacks } from "@core/contracts"
import { Ids } from "@core/kernel"
import { makeHttpHarness, type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Catalogue, StacksMigrations, StacksRouter } from "../src/index.js"
import { TestCallers } from "./Callers.js"

/**
 * The stack catalogue's routes served from their declarations (`Stacks.StackRoutes`) on the shared
 * harness, on PGlite and (with `CORE_TEST_DATABASE_URL`) on PostgreSQL. A small `Callers` stands in
 * for identity: bearer `usr_*` tokens are members of `org_a`, `usr_operator` an operator, `static`
 * the service key, `core_a` an API key of `org_a`.
 */
const layerOn = (driver: "pglite" | "pg") =>
  Catalogue.Default.pipe(
    Layer.provideMerge(Layer.mergeAll(TestCallers, Ids.layer)),
    Layer.provideMerge(TestDatabase.layer([StacksMigrations], { driver }))
  )

const definition = (type = "sql_db") => ({ resources: [{ type, name: "main", environment: "prod", config: { size: "small" } }] })
const template = (name: string) => ({ name, displayName: `Template ${name}`, description: "A stack for tests" })

describe.each(TestDatabase.drivers)("the stack catalogue on %s", (driver) => {
  let h: HttpHarness<Layer.Layer.Success<ReturnType<typeof layerOn>>>
  const as = (token: string) => ({ token })
  const write = (path: string, method: string, json: unknown, token = "static") => h.fetch(path, { method, token, json })
  const publish = (name: string, version: string, token = "static") =>
    write(`/api/v1/stacks/${name}/versions`, "POST", { version, stackDefinition: definition(), coreSdkVersion: "1.0.0" }, token)
  const latestOf = async (name: string) => ((await (await h.fetch(`/api/v1/stacks/${name}`, as("usr_member"))).json()) as { template: Stacks.StackTemplateSummary; latestVersion: Stacks.StackVersionRecord | null })
  const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; details: unknown } }).error

  beforeAll(async () => {
    h = await makeHttpHarness(StacksRouter, layerOn(driver))
  }, 60_000)
  afterAll(() => h?.dispose())

  it("creates a template for the static key and an operator (201 { id }), answers it to every caller", async () => {
    const created = await write("/api/v1/stacks", "POST", { ...template("web-app"), icon: "https://example.com/i.svg", domain: "web" })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }
    expect(id).toMatch(/^stk_/)
    expect((await write("/", "POST", template("by-operator"), "usr_operator")).status).toBe(201)

    for (const init of [as("usr_member"), as("usr_stranger"), { apiKey: "core_a" }, as("static")]) {
      const read = await h.fetch("/api/v1/stacks/web-app", init)
      expect(read.status).toBe(200)
      const body = Stacks.StackTemplateDetail.parse(await read.json())
      expect(body).toMatchObject({
        template: { id, name: "web-app", display_name: "Template web-app", description: "A stack for tests", icon: "https://example.com/i.svg", domain: "web", status: "active", latest_version: null },
        latestVersion: null
      })
      expect(typeof body.template.created_at).toBe("number")
    }
    const rows = await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT name, status FROM stacks.templates WHERE id = ${id}`))
    expect(rows).toEqual([{ name: "web-app", status: "active" }])
  })

  it("refuses a member, an API key and anonymous callers any write (403, 403, 401), and leaves the catalogue unchanged", async () => {
    await write("/api/v1/stacks", "POST", template("guarded"))
    for (const init of [{ token: "usr_member" }, { apiKey: "core_a" }]) {
      const attempts = [
        h.fetch("/api/v1/stacks", { ...init, method: "POST", json: template("mine") }),
        h.fetch("/api/v1/stacks/guarded", { ...init, method: "PATCH", json: { status: "deprecated" } }),
        h.fetch("/api/v1/stacks/guarded/versions", { ...init, method: "POST", json: { version: "1.0.0", stackDefinition: definition(), coreSdkVersion: "1.0.0" } }),
        h.fetch("/api/v1/stacks/guarded/1.0.0", { ...init, method: "DELETE" })
      ]
      for (const response of await Promise.all(attempts)) {
        expect(response.status).toBe(403)
        expect((await errorOf(response)).code).toBe("FORBIDDEN")
      }
    }
    expect((await h.fetch("/api/v1/stacks", { method: "POST", json: template("anon") })).status).toBe(401)
    expect((await h.fetch("/api/v1/stacks")).status).toBe(401)
    const rows = await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT count(*)::int AS n FROM stacks.templates WHERE name IN ('mine', 'anon')`))
    expect(rows).toEqual([{ n: 0 }])
    expect((await latestOf("guarded")).template.status).toBe("active")
  })

  it("answers 409 for a taken name and 400 naming the field for every limit of the seed", async () => {
    await write("/api/v1/stacks", "POST", template("taken"))
    const taken = await write("/api/v1/stacks", "POST", template("taken"))
    expect(taken.status).toBe(409)
    expect(await errorOf(taken)).toMatchObject({ code: "CONFLICT", details: { field: "name" } })
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{ ...template("x"), name: "" }, "name"],
      [{ ...template("x"), name: "a".repeat(65) }, "name"],
      [{ ...template("x"), name: "Not_A_Name" }, "name"],
      [{ ...template("x"), displayName: "" }, "displayName"],
      [{ ...template("x"), displayName: "d".repeat(129) }, "displayName"],
      [{ ...template("x"), description: "" }, "description"],
      [{ ...template("x"), description: "d".repeat(1025) }, "description"],
      [{ ...template("x"), icon: "i".repeat(2049) }, "icon"],
      [{ ...template("x"), domain: "d".repeat(201) }, "domain"],
      [{ ...template("x"), extra: 1 }, ""]
    ]
    for (const [json, field] of cases) {
      const response = await write("/api/v1/stacks", "POST", json)
      expect(response.status, JSON.stringify(json).slice(0, 80)).toBe(400)
      const error = await errorOf(response)
      expect(error.code).toBe("VALIDATION_ERROR")
      expect(JSON.stringify(error.details)).toContain(`"path":"${field}"`)
    }
    expect((await write("/api/v1/stacks", "POST", template("a".repeat(64)))).status).toBe(201)
    for (const json of [[], "x", null]) expect((await write("/api/v1/stacks", "POST", json)).status).toBe(400)
  })

  it("publishes versions: 201 { id }, 404 unknown template, 409 version exists, 400 bad version or definition", async () => {
    await write("/api/v1/stacks", "POST", template("pub"))
    const first = await publish("pub", "1.0.0")
    expect(first.status).toBe(201)
    const { id } = (await first.json()) as { id: string }
    expect(id).toMatch(/^ver_/)

    const again = await publish("pub", "1.0.0")
    expect(again.status).toBe(409)
    expect(await errorOf(again)).toMatchObject({ code: "CONFLICT", details: { field: "version", version: "1.0.0" } })
    const unknown = await publish("no-such-stack", "1.0.0")
    expect([unknown.status, (await errorOf(unknown)).code]).toEqual([404, "NOT_FOUND"])

    for (const version of ["v1.0.0", "1.0", "1.0.0+build.1", "01.0.0", "1.0.0-", "1.0.0-a..b", "1.0.0-beta_1", "1.0.0-01", " 1.0.0", "", "9".repeat(70)]) {
      const response = await publish("pub", version)
      expect(response.status, version).toBe(400)
      expect(JSON.stringify((await errorOf(response)).details)).toContain('"path":"version"')
    }
    const huge = await publish("pub", "99999999999999999999.0.0")
    expect(huge.status).toBe(400)
    expect(JSON.stringify((await errorOf(huge)).details)).toContain('"path":"version"')
    const badSdk = await write("/api/v1/stacks/pub/versions", "POST", { version: "2.0.0", stackDefinition: definition(), coreSdkVersion: "latest" })
    expect(JSON.stringify((await errorOf(badSdk)).details)).toContain('"path":"coreSdkVersion"')

    const definitions: ReadonlyArray<readonly [unknown, string]> = [
      [{}, "stackDefinition.resources"],
      [{ resources: [] }, "stackDefinition.resources"],
      [{ resources: [{ name: "a", environment: "prod" }] }, "stackDefinition.resources.0.type"],
      [{ resources: [{ type: "kv", name: "", environment: "prod" }] }, "stackDefinition.resources.0.name"],
      [{ resources: [{ type: "kv", name: "a" }] }, "stackDefinition.resources.0.environment"],
      [{ resources: [{ type: "kv", name: "a", environment: "prod", config: "big" }] }, "stackDefinition.resources.0.config"],
      [{ resources: [{ type: "kv", name: "a", environment: "prod", size: 1 }] }, "stackDefinition.resources.0"],
      [{ resources: [{ type: "kv", name: "a", environment: "prod", config: { blob: "x".repeat(70_000) } }] }, "stackDefinition"],
      ["text", "stackDefinition"]
    ]
    for (const [stackDefinition, path] of definitions) {
      const response = await write("/api/v1/stacks/pub/versions", "POST", { version: "3.0.0", stackDefinition, coreSdkVersion: "1.0.0" })
      expect(response.status, path).toBe(400)
      expect(JSON.stringify((await errorOf(response)).details), path).toContain(`"path":"${path}"`)
    }
    const rows = await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT version FROM stacks.versions v JOIN stacks.templates t ON t.id = v.template_id WHERE t.name = 'pub'`))
    expect(rows).toEqual([{ version: "1.0.0" }])
  })

  it("stores the definition as JSON text, answers the version record, and the published JSON Schema accepts what publish accepts", async () => {
    await write("/api/v1/stacks", "POST", template("stored"))
    await write("/api/v1/stacks/stored/versions", "POST", { version: "1.2.3-rc.1", stackDefinition: definition("kv"), coreSdkVersion: "2.0.0-beta.1" })
    const response = await h.fetch("/api/v1/stacks/stored/1.2.3-rc.1", as("usr_member"))
    expect(response.status).toBe(200)
    const record = Stacks.StackVersionRecord.parse(await response.json())
    expect(record).toMatchObject({ version: "1.2.3-rc.1", core_sdk_version: "2.0.0-beta.1", status: "published" })
    expect(JSON.parse(record.stack_definition)).toEqual(definition("kv"))
    expect(record.published_at).toBe(record.created_at)
    const raw = await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT stack_definition FROM stacks.versions WHERE id = ${record.id}`))
    expect(raw).toEqual([{ stack_definition: record.stack_definition }])
    expect(Stacks.STACK_DEFINITION_JSON_SCHEMA).toMatchObject({ type: "object", required: ["resources"], additionalProperties: false })

    expect((await h.fetch("/api/v1/stacks/stored/9.9.9", as("usr_member"))).status).toBe(404)
    expect((await h.fetch("/api/v1/stacks/nothing/1.0.0", as("usr_member"))).status).toBe(404)
    // A version that cannot be one names nothing either: the same 404 (decision 0567).
    const malformed = await h.fetch("/api/v1/stacks/stored/v1.2.3", as("usr_member"))
    expect(malformed.status).toBe(404)
    expect((await malformed.json()).error).toMatchObject({ code: "NOT_FOUND", message: "Stack version not found", details: null })
  })

  it("latest_version is the highest published release by semantic-version order, never the newest row", async () => {
    await write("/api/v1/stacks", "POST", template("order"))
    expect((await latestOf("order")).latestVersion).toBeNull()
    await publish("order", "2.0.0-beta.1")
    expect((await latestOf("order")).template.latest_version).toBe("2.0.0-beta.1") // a pre-release only while no release exists
    for (const version of ["1.10.0", "1.9.0", "1.2.0"]) await publish("order", version)
    const detail = await latestOf("order")
    expect(detail.template.latest_version).toBe("1.10.0")
    expect(detail.latestVersion?.version).toBe("1.10.0")
    await publish("order", "1.10.1-rc.1")
    expect((await latestOf("order")).template.latest_version).toBe("1.10.0")

    const versions = await (await h.fetch("/api/v1/stacks/order/versions", as("usr_member"))).json() as { data: Array<{ version: string }>; total: number }
    expect(versions.data.map((v) => v.version)).toEqual(["2.0.0-beta.1", "1.10.1-rc.1", "1.10.0", "1.9.0", "1.2.0"])
    expect(versions.total).toBe(5)

    // DELETE deprecates; the latest moves down past it.
    const deleted = await h.fetch("/api/v1/stacks/order/1.10.0", { method: "DELETE", token: "static" })
    expect([deleted.status, await deleted.json()]).toEqual([200, { ok: true }])
    expect((await latestOf("order")).template.latest_version).toBe("1.9.0")
    const kept = await (await h.fetch("/api/v1/stacks/order/1.10.0", as("usr_member"))).json() as { status: string }
    expect(kept.status).toBe("deprecated")
    for (const version of ["1.9.0", "1.2.0"]) await h.fetch(`/api/v1/stacks/order/${version}`, { method: "DELETE", token: "usr_operator" })
    expect((await latestOf("order")).template.latest_version).toBe("2.0.0-beta.1")
    for (const version of ["2.0.0-beta.1", "1.10.1-rc.1"]) await h.fetch(`/api/v1/stacks/order/${version}`, { method: "DELETE", token: "static" })
    const none = await latestOf("order")
    expect([none.template.latest_version, none.latestVersion]).toEqual([null, null])
    expect((await h.fetch("/api/v1/stacks/order/1.0.0", { method: "DELETE", token: "static" })).status).toBe(404)
    expect((await h.fetch("/api/v1/stacks/nothing/1.0.0", { method: "DELETE", token: "static" })).status).toBe(404)
    // A version already deprecated: deprecating again is a no-op.
    expect((await h.fetch("/api/v1/stacks/order/1.10.0", { method: "DELETE", token: "static" })).status).toBe(200)
  })

  it("PATCH changes a template; deprecation hides it from the active list, not from a read; activation shows it again", async () => {
    await write("/api/v1/stacks", "POST", template("listed"))
    await publish("listed", "0.1.0")
    const names = async () => ((await (await h.fetch("/api/v1/stacks", as("usr_member"))).json()) as { data: Array<{ name: string; latest_version: string | null }>; total: number })
    const before = await names()
    expect(before.data.find((t) => t.name === "listed")?.latest_version).toBe("0.1.0")
    expect(before.total).toBe(before.data.length)

    const patched = await write("/api/v1/stacks/listed", "PATCH", { displayName: "Listed", description: "Changed", icon: "icon.svg", status: "deprecated" })
    expect([patched.status, await patched.json()]).toEqual([200, { ok: true }])
    expect((await names()).data.some((t) => t.name === "listed")).toBe(false)
    const read = await latestOf("listed")
    expect(read.template).toMatchObject({ display_name: "Listed", description: "Changed", icon: "icon.svg", status: "deprecated" })
    expect(read.template.updated_at).toBeGreaterThanOrEqual(read.template.created_at)

    expect((await write("/api/v1/stacks/listed", "PATCH", { status: "active" }, "usr_operator")).status).toBe(200)
    expect((await names()).data.some((t) => t.name === "listed")).toBe(true)

    expect((await write("/api/v1/stacks/nothing", "PATCH", { status: "active" })).status).toBe(404)
    for (const json of [{}, { status: "retired" }, { displayName: "" }, { description: "d".repeat(1025) }, { name: "renamed" }]) {
      expect((await write("/api/v1/stacks/listed", "PATCH", json)).status, JSON.stringify(json)).toBe(400)
    }
  })

  it("two racing publishes of one version: one 201, one 409, one row", async () => {
    await write("/api/v1/stacks", "POST", template("race"))
    for (const version of ["1.0.0", "1.0.1", "1.0.2"]) {
      const statuses = (await Promise.all([publish("race", version), publish("race", version, "usr_operator")])).map((r) => r.status)
      expect(statuses.sort()).toEqual([201, 409])
    }
    const racedNames = (await Promise.all([write("/api/v1/stacks", "POST", template("race-2")), write("/api/v1/stacks", "POST", template("race-2"))])).map((r) => r.status)
    expect(racedNames.sort()).toEqual([201, 409])
    const rows = await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT count(*)::int AS n FROM stacks.versions v JOIN stacks.templates t ON t.id = v.template_id WHERE t.name = 'race'`))
    expect(rows).toEqual([{ n: 3 }])
  })

  it("serves the forwarded paths (prefix stripped) as the documented ones", async () => {
    await write("/", "POST", template("forwarded"))
    expect((await publish("forwarded", "1.0.0")).status).toBe(201)
    expect((await h.fetch("/forwarded/versions", as("usr_member"))).status).toBe(200)
    expect((await h.fetch("/forwarded/1.0.0", as("usr_member"))).status).toBe(200)
    expect((await h.fetch("/", as("usr_member"))).status).toBe(200)
  })
})
