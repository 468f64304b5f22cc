import { beforeAll, describe, expect, it } from "vitest"
import { tenantOf } from "./support/tenants.js"
import { SHARED_STATIC_KEY, useSharedServer } from "./support/sharedServer.js"
import { eventually as poll } from "./support/poll.js"

/**
 * One suspension everywhere: a platform suspended (or deleted) in the registry is refused at the
 * gateway of the all-in-one server with 451 `PLATFORM_SUSPENDED` within 5 seconds, and served again
 * once restored (decision 0229's companion: the registry publishes to identity's platform status).
 */
const SLOW = 180_000
const STATIC_KEY = SHARED_STATIC_KEY


/** Read `probe` until it answers `status` (5 s at most); the status, or the failure naming the last one seen. */
const eventually = (probe: () => Promise<Response>, status: number): Promise<number> =>
  poll(async () => {
    const response = await probe()
    await response.body?.cancel()
    return response.status
  }, (seen) => seen === status, { message: `an answer ${status}`, timeout: 5_000, interval: 100 })

describe("a suspension made in the registry, at the gateway", () => {
  const server = useSharedServer(SLOW)
  let ada: { token: string; platformId: string }
  let bob: { token: string; platformId: string }

  beforeAll(async () => {
    ada = await tenantOf(server.base, "Ada", "ada-suspended")
    bob = await tenantOf(server.base, "Bob", "bob-deleted")
  }, SLOW)

  const asOperator = (path: string, body: unknown = {}) =>
    fetch(`${server.base}/api/v1/platforms/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${STATIC_KEY}` },
      body: JSON.stringify(body)
    })

  it("answers 451 to the suspended tenant within 5 seconds, and serves it again once restored", async () => {
    const probe = () => fetch(`${server.base}/api/v1/platforms/${ada.platformId}`, { headers: { authorization: `Bearer ${ada.token}` } })
    expect((await probe()).status).toBe(200)
    const suspended = await asOperator(`${ada.platformId}/suspend`, { reason: "unpaid" })
    expect(suspended.status).toBe(200)
    expect(await suspended.json()).toMatchObject({ status: "suspended", suspensionReason: "unpaid" })
    expect(await eventually(probe, 451)).toBe(451)
    const refused = await probe()
    expect((await refused.json()).error).toMatchObject({ code: "PLATFORM_SUSPENDED" })
    // Bob's platform is untouched.
    expect((await fetch(`${server.base}/api/v1/platforms/${bob.platformId}`, { headers: { authorization: `Bearer ${bob.token}` } })).status).toBe(200)

    expect((await asOperator(`${ada.platformId}/restore`)).status).toBe(200)
    expect(await eventually(probe, 200)).toBe(200)
  }, SLOW)

  it("answers 451 to a deleted platform's callers; a cancelled one keeps working", async () => {
    const probe = () => fetch(`${server.base}/api/v1/platforms/${bob.platformId}`, { headers: { authorization: `Bearer ${bob.token}` } })
    const cancelled = await fetch(`${server.base}/api/v1/platforms/${bob.platformId}/cancel`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${bob.token}` },
      body: JSON.stringify({ reason: "done" })
    })
    expect(cancelled.status).toBe(200)
    expect((await probe()).status).toBe(200)
    expect((await asOperator(`${bob.platformId}/delete`)).status).toBe(200)
    expect(await eventually(probe, 451)).toBe(451)
  }, SLOW)
})
