import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startExpressHost } from "./runtimes.js"

let host: { readonly url: string; readonly close: () => Promise<void> }
beforeAll(async () => {
  host = await startExpressHost()
})
afterAll(() => host.close())

describe("Express.middleware", () => {
  it("enforces its own maxBodySize while streaming the body, as a 413 envelope", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(new Uint8Array(1000))
        controller.close()
      }
    })
    const init = { method: "POST", body, duplex: "half", headers: { "x-request-id": "e1" } }
    const response = await fetch(`${host.url}/small/upload`, init as RequestInit)
    expect([response.status, await response.json()]).toEqual([413, {
      error: {
        code: "PAYLOAD_TOO_LARGE",
        message: "The request body exceeds the limit of 1000 bytes",
        requestId: "e1",
        details: { limit: 1000 }
      }
    }])
  })

  it("passes on a body that express.json() already parsed", async () => {
    const init = { method: "POST", body: JSON.stringify({ message: "parsed first" }), headers: { "content-type": "application/json" } }
    const response = await fetch(`${host.url}/parsed/echo`, init)
    expect([response.status, await response.json()]).toEqual([200, { echo: { message: "parsed first" } }])
  })
})
