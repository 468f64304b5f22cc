import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PlatformStatus } from "../src/authorization/PlatformStatus.js"
import { auditRows, envelope, type Harness, makeHarness, seedOperator, seedTenant, STATIC_KEY } from "./AuthorizationSupport.js"

let h: Harness
let tenant: Effect.Effect.Success<typeof seedTenant>
let operator: Effect.Effect.Success<typeof seedOperator>

beforeAll(async () => {
  h = await makeHarness()
  tenant = await h.run(seedTenant)
  operator = await h.run(seedOperator)
})
afterAll(() => h.dispose())

const post = (json: unknown, token?: string) =>
  h.fetch("/internal/platform-status", { method: "POST", json, ...(token === undefined ? {} : { token }) })

const statusOf = (platformId: string) => h.run(Effect.flatMap(PlatformStatus, (s) => s.statusOf(platformId)))

describe("POST /internal/platform-status", () => {
  it("suspends and restores a platform for the static key, audited with the organization and both statuses", async () => {
    const platformId = tenant.org.platformId!
    expect(await statusOf(platformId)).toBe("active")
    const suspended = await post({ platformId, status: "suspended" }, STATIC_KEY)
    expect(suspended.status).toBe(200)
    expect(await suspended.json()).toEqual({ platformId, status: "suspended", updatedAt: expect.any(String) })
    expect(await statusOf(platformId)).toBe("suspended")
    const row = await h.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ status: string; updatedBy: string }>`SELECT status AS "status", updated_by AS "updatedBy"
        FROM iam.platform_status WHERE platform_id = ${platformId}`))
    expect(row).toEqual([{ status: "suspended", updatedBy: "service" }])

    const restored = await post({ platformId, status: "active" }, operator.token)
    expect(restored.status).toBe(200)
    expect((await restored.json()).status).toBe("active")
    expect(await statusOf(platformId)).toBe("active")

    const entries = await h.run(auditRows("platform.status_change"))
    expect(entries).toEqual([
      {
        actorId: null,
        actorType: "service",
        organizationId: tenant.org.id,
        targetId: platformId,
        metadata: { from: "active", to: "suspended" }
      },
      {
        actorId: operator.id,
        actorType: "user",
        organizationId: tenant.org.id,
        targetId: platformId,
        metadata: { from: "suspended", to: "active" }
      }
    ])
  })

  it("accepts platforms identity has no organization for", async () => {
    const response = await post({ platformId: "plt_registry_only", status: "suspended" }, STATIC_KEY)
    expect(response.status).toBe(200)
    expect(await statusOf("plt_registry_only")).toBe("suspended")
  })

  it("answers 401 without credentials and 403 to a user who is not an operator (even the owner)", async () => {
    const json = { platformId: tenant.org.platformId, status: "suspended" }
    const none = await post(json)
    expect(none.status).toBe(401)
    const owner = await post(json, tenant.owner.token)
    expect(owner.status).toBe(403)
    expect(await owner.json()).toEqual(envelope("FORBIDDEN", "This action needs the operator role or the service key"))
    expect(await statusOf(tenant.org.platformId!)).toBe("active")
  })

  it("answers 400 VALIDATION_ERROR for each broken field rule", async () => {
    const cases: Array<[unknown, string]> = [
      [{ status: "suspended" }, "platformId"],
      [{ platformId: "", status: "suspended" }, "platformId"],
      [{ platformId: 5, status: "suspended" }, "platformId"],
      [{ platformId: "plt\u0000", status: "suspended" }, "platformId"],
      [{ platformId: "plt_x" }, "status"],
      [{ platformId: "plt_x", status: "paused" }, "status"],
      [{ platformId: "plt_x", status: "SUSPENDED" }, "status"]
    ]
    for (const [json, path] of cases) {
      const response = await post(json, STATIC_KEY)
      expect(response.status).toBe(400)
      const body = await response.json()
      expect(body.error.code).toBe("VALIDATION_ERROR")
      expect(body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path)
    }
  })
})
