import { describe, expect, it } from "vitest"
import { z } from "zod"
import { BoundedId } from "../src/Bounds.js"
import { idSchema, PlatformId } from "../src/Ids.js"
import { naming, notFoundMessage, pathInput } from "../src/PathRecords.js"
import type { RouteSpec } from "../src/Routes.js"

const routeWith = (params: z.ZodType): RouteSpec => ({ method: "GET", path: "/x/:a/:b", summary: "x", auth: "public", request: { params }, responses: {} })

describe("PathRecords", () => {
  it("names what an id of each prefix names, in the words of its 404", () => {
    const route = routeWith(z.object({ a: PlatformId, b: idSchema("dlq") }))
    expect(notFoundMessage(route, "a")).toBe("Platform not found")
    expect(notFoundMessage(route, "b")).toBe("Dead-letter entry not found")
  })

  it("names a bounded id per route without touching the schema it copies, and marks written values as input", () => {
    const invoice = naming(BoundedId, "Invoice not found")
    const route = routeWith(z.object({ a: invoice, b: pathInput(BoundedId) }))
    expect(notFoundMessage(route, "a")).toBe("Invoice not found")
    expect(notFoundMessage(route, "b")).toBeUndefined()
    expect(notFoundMessage(routeWith(z.object({ a: BoundedId, b: BoundedId })), "a")).toBe("Not found")
    // The copy keeps the original's checks and its OpenAPI metadata.
    expect(invoice.safeParse("x".repeat(129)).success).toBe(false)
    expect(z.toJSONSchema(invoice)).toEqual(z.toJSONSchema(BoundedId))
  })
})
