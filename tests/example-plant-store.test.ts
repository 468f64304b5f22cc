import { serve } from "@hono/node-server"
import { TestDatabase } from "@core/kernel/testing"
import { Validator } from "@seriousme/openapi-schema-validator"
import { Effect, Exit, Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makePlantStore } from "../examples/plant-store/src/app.js"
import { type Tenant, tenantOf } from "./support/tenants.js"
import { SHARED_STATIC_KEY, useSharedServer } from "./support/sharedServer.js"

/**
 * The plant store (examples/plant-store, decision 0550) in front of the real all-in-one Core server:
 * bearer credentials (a session token, a Core API key) checked by Core's identity service, the
 * seed's 200/400 bodies and its `Error` schema, plants kept per organization in the store's own
 * schema (surviving a restart), and the OpenAPI 3.0.1 document checked by a validator.
 */
const SLOW = 180_000
const STATIC_KEY = SHARED_STATIC_KEY

/** A running plant store and how to stop it (its database closed). */
const startStore = async (env: Record<string, string>) => {
  const store = makePlantStore({ env: { CORE_STATIC_API_KEY: STATIC_KEY, ...env } })
  const { server, base } = await new Promise<{ server: ReturnType<typeof serve>; base: string }>((resolve) => {
    const server = serve({ fetch: store.app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) =>
      resolve({ server, base: `http://127.0.0.1:${info.port}` }))
  })
  return {
    base,
    stop: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await store.dispose()
    }
  }
}

const send = async (base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body })
  })
  return { status: response.status, headers: response.headers, body: await response.json() as unknown }
}

for (const driver of TestDatabase.drivers) {
  describe(`examples/plant-store against the all-in-one Core server on ${driver}`, () => {
    const core = useSharedServer(SLOW, { driver })
    const work = mkdtempSync(join(tmpdir(), "plant-store-"))
    const scope = Effect.runSync(Scope.make())
    let storeEnv: Record<string, string> = {}
    let store: Awaited<ReturnType<typeof startStore>>
    let ada: Tenant
    let bee: Tenant
    let adaKey = ""

    beforeAll(async () => {
      storeEnv = driver === "pg"
        ? { CORE_URL: core.base, DATABASE_URL: await Effect.runPromise(Scope.extend(TestDatabase.scratchDatabase(TestDatabase.url!), scope)) }
        : { CORE_URL: core.base, CORE_DATA_DIR: join(work, "data") }
      store = await startStore(storeEnv)
      ada = await tenantOf(core.base, "Ada", `plants-ada-${driver}`)
      bee = await tenantOf(core.base, "Bee", `plants-bee-${driver}`)
      adaKey = (await ada.client.iam.apiKeys.create({ organizationId: ada.orgId, name: "plant store" })).key
    }, SLOW)

    afterAll(async () => {
      await store?.stop()
      await Effect.runPromise(Scope.close(scope, Exit.void))
      rmSync(work, { recursive: true, force: true })
    }, SLOW)

    it("POST /plants answers 200 with the Plant for a session token and for a Core API key; GET /plants lists them by id", async () => {
      const bySession = await send(store.base, "POST", "/plants", ada.bearer, JSON.stringify({ id: 2, name: "Fern", tag: "shade" }))
      expect([bySession.status, bySession.body]).toEqual([200, { name: "Fern", tag: "shade" }])
      const byKey = await send(store.base, "POST", "/plants", { authorization: `Bearer ${adaKey}` }, JSON.stringify({ id: 1, name: "Basil" }))
      expect([byKey.status, byKey.body]).toEqual([200, { name: "Basil" }])

      const listed = await send(store.base, "GET", "/plants", { authorization: `Bearer ${adaKey}` })
      expect([listed.status, listed.body]).toEqual([200, [{ id: 1, name: "Basil" }, { id: 2, name: "Fern", tag: "shade" }]])
      const page = await send(store.base, "GET", "/plants?limit=1&after=1", ada.bearer)
      expect(page.body).toEqual([{ id: 2, name: "Fern", tag: "shade" }])
    }, SLOW)

    it("answers 400 with the seed's Error schema for a bad body or query, 409 for an id the organization already has", async () => {
      const cases: Array<[string, string]> = [
        ["{not json", "The body is not valid JSON"],
        [JSON.stringify({ name: "Fern" }), "id: Invalid input: expected number, received undefined"],
        [JSON.stringify({ id: "7", name: "Fern" }), "id: Invalid input: expected number, received string"],
        [JSON.stringify({ id: 1.5, name: "Fern" }), "id: Invalid input: expected int, received number"],
        [JSON.stringify({ id: -1, name: "Fern" }), "id: Too small: expected number to be >=0"],
        [JSON.stringify({ id: 7 }), "name: Invalid input: expected string, received undefined"],
        [JSON.stringify({ id: 7, name: "" }), "name: Too small: expected string to have >=1 characters"],
        [JSON.stringify({ id: 7, name: "x".repeat(201) }), "name: Too big: expected string to have <=200 characters"],
        [JSON.stringify({ id: 7, name: "Fern", tag: null }), "tag: Invalid input: expected string, received null"],
        [JSON.stringify([]), "Invalid input: expected object, received array"]
      ]
      for (const [body, message] of cases) {
        const answer = await send(store.base, "POST", "/plants", ada.bearer, body)
        expect([answer.status, answer.body], body).toEqual([400, { error: 400, message }])
      }
      const query = await send(store.base, "GET", "/plants?limit=0", ada.bearer)
      expect([query.status, query.body]).toEqual([400, { error: 400, message: "limit: Too small: expected number to be >=1" }])
      const huge = await send(store.base, "POST", "/plants", ada.bearer, JSON.stringify({ id: 8, name: "x".repeat(20_000) }))
      expect([huge.status, huge.body]).toEqual([413, { error: 413, message: "The body is larger than 16384 bytes" }])

      const again = await send(store.base, "POST", "/plants", ada.bearer, JSON.stringify({ id: 1, name: "Mint" }))
      expect([again.status, again.body]).toEqual([409, { error: 409, message: "A plant with id 1 already exists" }])
    }, SLOW)

    it("answers 401 without a bearer, with one Core refuses, and with a revoked API key; 502 when Core cannot be reached", async () => {
      const plant = JSON.stringify({ id: 9, name: "Ivy" })
      const none = await send(store.base, "POST", "/plants", {}, plant)
      expect([none.status, none.headers.get("www-authenticate"), none.body]).toEqual([
        401,
        "Bearer",
        { error: 401, message: "Authentication required: send Authorization: Bearer <Core API key or session token>" }
      ])
      const refused = { error: 401, message: "Invalid, expired or revoked credentials" }
      for (const authorization of ["Bearer not-a-session", `Bearer core_${"x".repeat(43)}`, `Bearer ${STATIC_KEY}`]) {
        const answer = await send(store.base, "POST", "/plants", { authorization }, plant)
        expect([answer.status, answer.body], authorization).toEqual([401, refused])
      }
      expect((await send(store.base, "GET", "/plants", { authorization: "Basic YWRhOnB3" })).status).toBe(401)

      const key = await bee.client.iam.apiKeys.create({ organizationId: bee.orgId, name: "revoked soon" })
      expect((await send(store.base, "GET", "/plants", { authorization: `Bearer ${key.key}` })).status).toBe(200)
      await bee.client.iam.apiKeys.revoke(key.id)
      const revoked = await send(store.base, "GET", "/plants", { authorization: `Bearer ${key.key}` })
      expect([revoked.status, revoked.body]).toEqual([401, refused])

      const offline = await startStore({ CORE_URL: "http://127.0.0.1:9", CORE_DATA_DIR: "memory://" })
      try {
        const answer = await send(offline.base, "GET", "/plants", ada.bearer)
        expect([answer.status, answer.body]).toEqual([502, { error: 502, message: "Core could not be reached to check the credentials" }])
      } finally {
        await offline.stop()
      }
    }, SLOW)

    it("keeps each organization's plants apart: the same id in two organizations, neither listing the other's", async () => {
      const beeFern = await send(store.base, "POST", "/plants", bee.bearer, JSON.stringify({ id: 1, name: "Cactus" }))
      expect([beeFern.status, beeFern.body]).toEqual([200, { name: "Cactus" }])
      expect((await send(store.base, "GET", "/plants", bee.bearer)).body).toEqual([{ id: 1, name: "Cactus" }])
      expect((await send(store.base, "GET", "/plants", ada.bearer)).body).toEqual([
        { id: 1, name: "Basil" },
        { id: 2, name: "Fern", tag: "shade" }
      ])
    }, SLOW)

    it("keeps the plants in the database across a restart of the store", async () => {
      await store.stop()
      store = await startStore(storeEnv)
      expect((await send(store.base, "GET", "/plants", ada.bearer)).body).toEqual([
        { id: 1, name: "Basil" },
        { id: 2, name: "Fern", tag: "shade" }
      ])
    }, SLOW)

    it("serves its OpenAPI 3.0.1 description without authentication, valid for the validator", async () => {
      const answer = await send(store.base, "GET", "/openapi.json")
      expect(answer.status).toBe(200)
      const document = answer.body as any
      expect(document.openapi).toBe("3.0.1")
      expect(document.info.version).toBe("1.0.0")
      expect(document.servers).toEqual([{ url: store.base }])
      expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" })
      expect(Object.keys(document.components.schemas).sort()).toEqual(["Error", "NewPlant", "Plant"])
      expect(document.components.schemas.Error).toEqual({
        type: "object",
        required: ["error", "message"],
        properties: { error: { type: "integer", format: "int32" }, message: { type: "string" } }
      })
      expect(document.paths["/plants"].post.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Plant" })

      const validator = new Validator()
      const result = await validator.validate(document)
      expect(result.errors).toBeUndefined()
      expect([result.valid, validator.version]).toEqual([true, "3.0"])
    }, SLOW)
  })
}
