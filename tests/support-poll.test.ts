import { describe, expect, it } from "vitest"
import { eventually, eventuallyDefined, until } from "./support/poll.js"

/** The shared polling helper (tests/support/poll.ts, decision 0590): what it returns and how it fails. */
describe("tests/support/poll", () => {
  it("reads until the value holds, reading again after a read that throws", async () => {
    let reads = 0
    const value = await eventually(() => {
      reads += 1
      if (reads === 1) throw new Error("connection refused")
      return reads
    }, (n) => n >= 3, { message: "three reads", interval: 1 })
    expect({ value, reads }).toEqual({ value: 3, reads: 3 })
    expect(await eventuallyDefined(() => (reads++ > 4 ? "ready" : undefined), { message: "ready", interval: 1 })).toBe("ready")
  })

  it("fails at the deadline with what it waited for and the last value or error read", async () => {
    await expect(eventually(() => ({ status: 503 }), (answer) => answer.status === 200, { message: "a healthy server", timeout: 20, interval: 5 }))
      .rejects.toThrow(/^Timed out after 20 ms waiting for a healthy server; last read: \{"status":503\}$/)
    await expect(eventuallyDefined(() => Promise.reject(new TypeError("fetch failed")), { message: () => "workerd", timeout: 20, interval: 5 }))
      .rejects.toThrow(/^Timed out after 20 ms waiting for workerd; last read: TypeError: fetch failed$/)
  })

  it("stops at once when abandon gives a reason", async () => {
    const started = Date.now()
    await expect(eventuallyDefined(() => undefined, { message: "the port", timeout: 60_000, abandon: () => "it exited 1" }))
      .rejects.toThrow(/^Stopped waiting for the port: it exited 1; last read: undefined$/)
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it("until returns the last value read, held or not", async () => {
    let n = 0
    expect(await until(async () => ++n, (value) => value === 2, 5_000)).toBe(2)
    expect(await until(async () => "pending", (value) => value === "done", 20)).toBe("pending")
  })
})
