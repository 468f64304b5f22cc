import { Ids } from "@core/kernel"
import { makeHttpHarness, type HttpHarness, TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Platforms, RegistryMigrations, RegistryRouter } from "../src/index.js"
import { TestCallers } from "./Callers.js"

const makeLayer = (driver: "pglite" | "pg") =>
  Platforms.Default.pipe(
    Layer.provideMerge(Layer.mergeAll(TestCallers, Ids.layer)),
    Layer.provideMerge(TestDatabase.layer([RegistryMigrations], { driver }))
  )

type Status = "active" | "suspended" | "cancelled" | "deleted"
type Action = "suspend" | "restore" | "cancel" | "delete"

/** The lifecycle as docs/registry.md draws it: the status each action leads to from each status, or 409. */
const table: Record<Status, Record<Action, Status | 409>> = {
  active: { suspend: "suspended", restore: 409, cancel: "cancelled", delete: "deleted" },
  suspended: { suspend: 409, restore: "active", cancel: "cancelled", delete: "deleted" },
  cancelled: { suspend: 409, restore: 409, cancel: 409, delete: "deleted" },
  deleted: { suspend: 409, restore: 409, cancel: 409, delete: 409 }
}
const targetOf: Record<Action, Status> = { suspend: "suspended", restore: "active", cancel: "cancelled", delete: "deleted" }
/** How a fresh (active) platform reaches each status. */
const pathTo: Record<Status, ReadonlyArray<Action>> = { active: [], suspended: ["suspend"], cancelled: ["cancel"], deleted: ["delete"] }

for (const driver of TestDatabase.drivers) {
  describe(`platform lifecycle on ${driver}`, () => {
    let h: HttpHarness<Layer.Layer.Success<ReturnType<typeof makeLayer>>>
    let serial = 0
    let platformA: string
    const create = (organizationId = `org_${++serial}`) =>
      h.run(Effect.flatMap(Platforms, (p) => p.create({ name: "P", slug: `p-${++serial}`, organizationId }))).then((p) => p.id)
    const query = (text: string) => h.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text)))
    const act = (platform: string, action: Action, init: { token?: string; apiKey?: string } = { token: "static" }, json: unknown = {}) =>
      h.fetch(`/api/v1/platforms/${platform}/${action}`, { method: "POST", ...init, json })

    beforeAll(async () => {
      h = await makeHttpHarness(RegistryRouter, makeLayer(driver))
      platformA = await create("org_a")
    })
    afterAll(() => h.dispose())

    for (const from of Object.keys(table) as Array<Status>) {
      for (const action of Object.keys(table[from]) as Array<Action>) {
        const expected = table[from][action]
        it(`${action} from ${from}: ${expected === 409 ? "409 INVALID_STATE" : expected}`, async () => {
          const platform = await create()
          for (const step of pathTo[from]) expect((await act(platform, step)).status).toBe(200)
          const before = await query(`SELECT count(*)::int AS n FROM registry.lifecycle_events WHERE platform_id = '${platform}'`)
          const response = await act(platform, action, { token: "usr_operator" }, { reason: "because" })
          const body = await response.json()
          const events = await query(`SELECT from_status, to_status, triggered_by, trigger_type, reason FROM registry.lifecycle_events
            WHERE platform_id = '${platform}' ORDER BY created_at, id`)
          if (expected === 409) {
            expect(response.status).toBe(409)
            expect(body.error).toMatchObject({ code: "INVALID_STATE", details: { from, to: targetOf[action] } })
            expect(events.length).toBe((before[0] as { n: number }).n)
            const [row] = await query(`SELECT status FROM registry.platforms WHERE id = '${platform}'`)
            expect(row).toEqual({ status: from })
            return
          }
          expect(response.status).toBe(200)
          expect(body).toMatchObject({ id: platform, status: expected })
          expect(events.at(-1)).toEqual({ from_status: from, to_status: expected, triggered_by: "usr_operator", trigger_type: "operator", reason: "because" })
          if (action === "suspend") expect(body).toMatchObject({ suspendedAt: expect.any(String), suspensionReason: "because" })
          if (action === "restore") expect(body).toMatchObject({ suspendedAt: null, suspensionReason: null })
          if (action === "cancel") expect(body).toMatchObject({ cancelledAt: expect.any(String), cancellationReason: "because" })
          if (action === "delete") expect(body).toMatchObject({ deletedAt: expect.any(String) })
          expect((await h.fetch(`/api/v1/platforms/${platform}`, { token: "static" }).then((r) => r.json())).status).toBe(expected)
        })
      }
    }

    it("pages GET …/lifecycle oldest first, to the tenant's members and keys", async () => {
      const platform = platformA
      for (let index = 0; index < 3; index++) {
        expect((await act(platform, "suspend")).status).toBe(200)
        expect((await act(platform, "restore")).status).toBe(200)
      }
      const seen: Array<string> = []
      let cursor = ""
      for (;;) {
        const response = await h.fetch(`/api/v1/platforms/${platform}/lifecycle?limit=4${cursor === "" ? "" : `&cursor=${cursor}`}`, { token: "usr_member" })
        expect(response.status).toBe(200)
        const page = await response.json()
        expect(page.pagination.total).toBe(6)
        seen.push(...page.data.map((event: { toStatus: string }) => event.toStatus))
        if (!page.pagination.hasMore) break
        cursor = page.pagination.nextCursor
      }
      expect(seen).toEqual(["suspended", "active", "suspended", "active", "suspended", "active"])
      const first = await (await h.fetch(`/${platform}/lifecycle`, { apiKey: "core_a" })).json()
      expect(first.data[0]).toEqual({
        id: expect.stringMatching(/^lce_/),
        platformId: platform,
        fromStatus: "active",
        toStatus: "suspended",
        triggeredBy: "service",
        triggerType: "service",
        reason: null,
        metadata: {},
        createdAt: expect.any(String)
      })
      expect((await h.fetch(`/${platform}/lifecycle?cursor=garbage!`, { token: "static" })).status).toBe(400)
      expect((await h.fetch(`/${platform}/lifecycle`, { apiKey: "core_b" })).status).toBe(404)
    })

    it("keeps suspend, restore and hard delete to operators and the service key; the owner and admins may cancel", async () => {
      const platform = platformA
      for (const init of [{ token: "usr_owner" }, { token: "usr_admin" }, { apiKey: "core_a_manage" }, { token: "usr_member" }]) {
        for (const action of ["suspend", "delete"] as const) {
          const response = await act(platform, action, init)
          expect(response.status).toBe(403)
          expect((await response.json()).error.code).toBe("FORBIDDEN")
        }
      }
      expect((await act(platform, "suspend", { token: "static" }, { reason: "unpaid" })).status).toBe(200)
      // An owner must not lift its own suspension.
      expect((await act(platform, "restore", { token: "usr_owner" })).status).toBe(403)
      expect((await h.fetch(`/${platform}`, { method: "PATCH", token: "usr_owner", json: { status: "active" } })).status).toBe(403)
      expect((await act(platform, "cancel", { token: "usr_member" })).status).toBe(403)
      const cancelled = await act(platform, "cancel", { token: "usr_owner" }, { reason: "moving on" })
      expect(cancelled.status).toBe(200)
      expect(await cancelled.json()).toMatchObject({ status: "cancelled", cancellationReason: "moving on", suspendedAt: expect.any(String) })
      const events = await query(`SELECT from_status, to_status, triggered_by, trigger_type, reason FROM registry.lifecycle_events
        WHERE platform_id = '${platform}' ORDER BY created_at, id`)
      expect(events.slice(-2)).toEqual([
        { from_status: "active", to_status: "suspended", triggered_by: "service", trigger_type: "service", reason: "unpaid" },
        { from_status: "suspended", to_status: "cancelled", triggered_by: "usr_owner", trigger_type: "user", reason: "moving on" }
      ])
    })

    it("answers 400 to a bad body, 401 without credentials", async () => {
      const platform = await create()
      for (const json of [{ reason: "" }, { reason: "x".repeat(4097) }, [], "x"]) {
        expect((await act(platform, "suspend", { token: "static" }, json)).status, JSON.stringify(json)).toBe(400)
      }
      expect((await h.fetch(`/api/v1/platforms/${platform}/suspend`, { method: "POST", json: {} })).status).toBe(401)
    })

    it.skipIf(driver === "pglite")("serializes concurrent lifecycle changes of one platform: no lost event, no impossible state", async () => {
      const platform = await create()
      const actions: Array<Action> = []
      for (let index = 0; index < 24; index++) actions.push(index % 2 === 0 ? "suspend" : "restore")
      actions.push("cancel", "cancel", "delete", "delete")
      const responses = await Promise.all(actions.map((action) => act(platform, action)))
      const statuses = responses.map((response) => response.status)
      expect(statuses.every((status) => status === 200 || status === 409)).toBe(true)
      const events = await query(`SELECT from_status, to_status FROM registry.lifecycle_events WHERE platform_id = '${platform}'
        ORDER BY created_at, id`) as Array<{ from_status: Status; to_status: Status }>
      // One event per success, and the events chain: each starts where the previous ended, by an allowed step.
      expect(events.length).toBe(statuses.filter((status) => status === 200).length)
      let current: Status = "active"
      for (const event of events) {
        expect(event.from_status).toBe(current)
        const allowed = (Object.keys(table[current]) as Array<Action>).some((action) => table[current][action] === event.to_status)
        expect(allowed, `${event.from_status} → ${event.to_status}`).toBe(true)
        current = event.to_status
      }
      const [row] = await query(`SELECT status FROM registry.platforms WHERE id = '${platform}'`)
      expect(row).toEqual({ status: current })
      expect(statuses.filter((status, index) => status === 200 && actions[index] === "delete").length).toBe(1)
    })
  })
}
