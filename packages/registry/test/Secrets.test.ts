import { Registry } from "@core/contracts"
import { Crypto } from "@core/kernel"
import { makeHttpHarness, type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, type Layer, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Platforms, RegistryRouter, Secrets, SECRETS_KEY_PURPOSE } from "../src/index.js"
import { makeResourcesLayer, resourceBody, TEST_SECRET } from "./ResourcesSupport.js"

const VALUE = "sk_live_the-value-nobody-may-read-0123456789"

/** The secret routes (`Registry.SecretRoutes`), on each driver: values encrypted at rest, never answered, never logged. */
for (const driver of TestDatabase.drivers) {
  describe(`secret routes on ${driver}`, () => {
    let h: HttpHarness<Layer.Layer.Success<ReturnType<typeof makeResourcesLayer>>>
    let platform: string
    let resource: string
    let otherPlatform: string
    let otherResource: string
    const secrets = (p = platform, r = resource) => `/api/v1/platforms/${p}/resources/${r}/secrets`
    const query = (text: string) => h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<Record<string, unknown>>(text)))
    const put = (name: string, json: unknown, init: { token?: string; apiKey?: string } = { token: "usr_admin" }, path = secrets()) =>
      h.fetch(`${path}/${name}`, { method: "PUT", ...init, json })
    const codeOf = async (response: Response) => ((await response.json()) as { error: { code: string } }).error.code
    const makeResource = async (platformId: string, edgeName: string) => {
      const entity = (await query(`SELECT id FROM registry.entities WHERE platform_id = '${platformId}' AND slug = 'default'`))[0]!.id
      const response = await h.fetch(`/api/v1/platforms/${platformId}/entities/${entity}/resources`, { method: "POST", token: "static", json: resourceBody(edgeName) })
      return (await response.json()).id as string
    }

    beforeAll(async () => {
      h = await makeHttpHarness(RegistryRouter, makeResourcesLayer(driver))
      platform = await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "A", slug: "sec-a", organizationId: "org_a" }))).then((p) => p.id)
      otherPlatform = await h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "B", slug: "sec-b", organizationId: "org_b" }))).then((p) => p.id)
      resource = await makeResource(platform, "sec-resource")
      otherResource = await makeResource(otherPlatform, "sec-other")
    })
    afterAll(() => h.dispose())

    it("sets a secret (201, then 200 when replaced): the record, never the value; encrypted at rest under CORE_SECRET", async () => {
      const created = await put("API_KEY", { value: VALUE })
      expect(created.status).toBe(201)
      const text = await created.text()
      expect(text).not.toContain(VALUE)
      const record = Registry.SecretRecord.parse(JSON.parse(text))
      expect(Object.keys(JSON.parse(text)).sort()).toEqual(["createdAt", "id", "lastSetAt", "resourceId", "secretName", "status", "updatedAt"])
      expect(record).toMatchObject({ resourceId: resource, secretName: "API_KEY", status: "active", lastSetAt: expect.any(String) })
      expect(record.id).toMatch(/^sec_[0-9A-Z]{26}$/)

      const rows = await query(`SELECT ciphertext FROM registry.secrets WHERE id = '${record.id}'`)
      const ciphertext = rows[0]!.ciphertext as string
      expect(ciphertext).not.toBe(VALUE)
      expect(ciphertext).not.toContain(VALUE)
      expect(ciphertext).toMatch(/^enc\.v1\./)
      // AES-256-GCM under the key derived from CORE_SECRET, bound to the resource and the name.
      const key = Crypto.deriveKey(TEST_SECRET, SECRETS_KEY_PURPOSE)
      expect(await Effect.runPromise(Crypto.decrypt(key, ciphertext, `registry.secrets/${resource}/API_KEY`))).toBe(VALUE)
      const moved = await Effect.runPromise(Effect.either(Crypto.decrypt(key, ciphertext, `registry.secrets/${resource}/OTHER`)))
      expect(moved._tag).toBe("Left")
      expect(await h.run(Effect.flatMap(Secrets, (s) => s.reveal(resource, "API_KEY")))).toEqual(Option.some(VALUE))

      const replaced = await put("API_KEY", { value: "second-value" }, { token: "usr_owner" })
      expect(replaced.status).toBe(200)
      const again = await replaced.json()
      expect(again).toMatchObject({ id: record.id, status: "active" })
      expect(Date.parse(again.lastSetAt)).toBeGreaterThanOrEqual(Date.parse(record.lastSetAt!))
      expect(await h.run(Effect.flatMap(Secrets, (s) => s.reveal(resource, "API_KEY")))).toEqual(Option.some("second-value"))
      expect((await query(`SELECT ciphertext FROM registry.secrets WHERE id = '${record.id}'`))[0]!.ciphertext).not.toBe(ciphertext)
      // Nothing the harness logged carries a value.
      expect(h.logs.join("\n")).not.toContain(VALUE)
      expect(h.logs.join("\n")).not.toContain("second-value")
    })

    it("lists names, status and lastSetAt (Page<SecretRecord>), never values; paged", async () => {
      for (const name of ["DB_URL", "TOKEN_B", "TOKEN_C"]) expect((await put(name, { value: `${VALUE}-${name}` }, { apiKey: "core_a_manage" })).status).toBe(201)
      const response = await h.fetch(`${secrets()}?limit=3`, { token: "usr_member" })
      expect(response.status).toBe(200)
      const text = await response.text()
      expect(text).not.toContain(VALUE)
      const page = Registry.SecretPage.parse(JSON.parse(text))
      expect(page.data.map((s) => s.secretName)).toEqual(["API_KEY", "DB_URL", "TOKEN_B"])
      expect(page.pagination).toMatchObject({ hasMore: true, total: 4 })
      const rest = await (await h.fetch(`${secrets()}?limit=3&cursor=${page.pagination.nextCursor}`, { apiKey: "core_a" })).json()
      expect(rest.data.map((s: { secretName: string }) => s.secretName)).toEqual(["TOKEN_C"])
      expect(rest.pagination).toEqual({ hasMore: false, nextCursor: null, total: 4 })
      for (const bad of ["limit=0", "status=gone", "cursor=%%%"]) expect((await h.fetch(`${secrets()}?${bad}`, { token: "usr_member" })).status, bad).toBe(400)
    })

    it("removes a secret: { success: true }, the ciphertext erased, the record deleted (listed with status=deleted); again: 404", async () => {
      expect((await put("GONE", { value: VALUE })).status).toBe(201)
      const removed = await h.fetch(`${secrets()}/GONE`, { method: "DELETE", token: "usr_admin" })
      expect(removed.status).toBe(200)
      expect(await removed.json()).toEqual({ success: true })
      expect(await query(`SELECT status, ciphertext FROM registry.secrets WHERE resource_id = '${resource}' AND secret_name = 'GONE'`)).toEqual([
        { status: "deleted", ciphertext: null }
      ])
      expect(await h.run(Effect.flatMap(Secrets, (s) => s.reveal(resource, "GONE")))).toEqual(Option.none())
      const live = await (await h.fetch(`${secrets()}?limit=100`, { token: "usr_member" })).json()
      expect(live.data.map((s: { secretName: string }) => s.secretName)).not.toContain("GONE")
      const deleted = await (await h.fetch(`${secrets()}?status=deleted`, { token: "usr_member" })).json()
      expect(deleted.data.map((s: { secretName: string; status: string }) => [s.secretName, s.status])).toEqual([["GONE", "deleted"]])
      const twice = await h.fetch(`${secrets()}/GONE`, { method: "DELETE", token: "usr_admin" })
      expect([twice.status, await codeOf(twice)]).toEqual([404, "NOT_FOUND"])
      // Setting it again revives the record.
      expect((await put("GONE", { value: "back" })).status).toBe(200)
    })

    it("answers 400 naming the field for a bad name or value; members and read keys 403; anonymous 401", async () => {
      for (const [name, json, field] of [
        ["1BAD", { value: "x" }, "secretName"],
        ["has-dash", { value: "x" }, "secretName"],
        ["OK", { value: "" }, "value"],
        ["OK", { value: "x".repeat(Registry.SECRET_VALUE_MAX_LENGTH + 1) }, "value"],
        ["OK", { value: 5 }, "value"],
        ["OK", {}, "value"]
      ] as const) {
        const response = await put(name, json)
        expect(response.status, `${name} ${field}`).toBe(400)
        const body = await response.json()
        expect(body.error.code).toBe("VALIDATION_ERROR")
        expect(body.error.details.issues.map((issue: { path: string }) => issue.path)).toContain(field)
      }
      // Names of 1 to 100 characters; a longer path parameter never reaches the route (the router's 404).
      expect((await put("X".repeat(100), { value: "x" })).status).toBe(201)
      expect([400, 404]).toContain((await put("X".repeat(101), { value: "x" })).status)
      expect((await put("OK", { value: "x" }, { token: "usr_member" })).status).toBe(403)
      expect((await put("OK", { value: "x" }, { apiKey: "core_a" })).status).toBe(403)
      expect((await put("OK", { value: "x" }, {})).status).toBe(401)
      expect((await h.fetch(`${secrets()}/API_KEY`, { method: "DELETE", token: "usr_member" })).status).toBe(403)
      expect((await h.fetch(secrets())).status).toBe(401)
      expect((await query(`SELECT count(*)::int AS n FROM registry.secrets WHERE secret_name = 'OK'`))[0]!.n).toBe(0)
    })

    it("another tenant's platform or resource ids answer 404 on every route; a deleted resource's secrets are gone (404)", async () => {
      expect((await put("MINE", { value: "b" }, { token: "usr_b_owner" }, secrets(otherPlatform, otherResource))).status).toBe(201)
      const routes = (path: string) => [
        h.fetch(path, { token: "usr_b_owner" }),
        h.fetch(`${path}/API_KEY`, { method: "PUT", token: "usr_b_owner", json: { value: "x" } }),
        h.fetch(`${path}/API_KEY`, { method: "DELETE", token: "usr_b_owner" })
      ]
      for (const response of await Promise.all(routes(secrets()))) expect([response.status, await codeOf(response)]).toEqual([404, "NOT_FOUND"])
      // The other platform's resource under this platform's path: 404 even to the service key.
      for (const response of await Promise.all([
        h.fetch(secrets(platform, otherResource), { token: "static" }),
        h.fetch(`${secrets(platform, otherResource)}/MINE`, { method: "PUT", token: "static", json: { value: "x" } }),
        h.fetch(`${secrets(platform, otherResource)}/MINE`, { method: "DELETE", token: "static" }),
        h.fetch(secrets(otherPlatform, otherResource), { token: "usr_owner" })
      ])) expect(response.status).toBe(404)
      expect(await h.run(Effect.flatMap(Secrets, (s) => s.reveal(otherResource, "MINE")))).toEqual(Option.some("b"))
      expect((await h.fetch(secrets(platform, "res_01JDQ3V6X4TQ7K9ZC2M8N5P0RS"), { token: "static" })).status).toBe(404)
      expect((await h.fetch(secrets(platform, "nope"), { token: "static" })).status).toBe(404)

      const doomed = await makeResource(platform, "sec-doomed")
      expect((await put("X", { value: "y" }, { token: "usr_admin" }, secrets(platform, doomed))).status).toBe(201)
      await h.fetch(`/api/v1/platforms/${platform}/resources/${doomed}`, { method: "DELETE", token: "static" })
      expect((await h.fetch(secrets(platform, doomed), { token: "static" })).status).toBe(404)
      expect((await put("X", { value: "y" }, { token: "static" }, secrets(platform, doomed))).status).toBe(404)
    })
  })
}
