import { describe, expect, it } from "vitest"
import { z } from "zod"
import {
  cursorList,
  cursorPage,
  CursorQuery,
  cursorQuery,
  dataList,
  deadLetterPage,
  InvitationsCursorQuery,
  jobPage,
  page,
  totalList
} from "../src/index.js"

const Item = z.object({ id: z.string() })

describe("Pagination", () => {
  it("coerces limit from the query string, 25 by default, 1 to 100", () => {
    expect(CursorQuery.parse({})).toEqual({ cursor: undefined, limit: 25 })
    expect(CursorQuery.parse({ limit: "100", cursor: "abc" })).toEqual({ cursor: "abc", limit: 100 })
    expect(CursorQuery.parse({ cursor: "" })).toEqual({ cursor: undefined, limit: 25 })
    for (const limit of ["0", "101", "abc", "2.5", "", "-1"]) {
      expect(CursorQuery.safeParse({ limit }).success, `limit ${JSON.stringify(limit)}`).toBe(false)
    }
    expect(CursorQuery.safeParse({ cursor: "x".repeat(1025) }).success).toBe(false)
  })

  it("defaults the invitation list to 50 and allows other defaults", () => {
    expect(InvitationsCursorQuery.parse({})).toEqual({ cursor: undefined, limit: 50 })
    expect(cursorQuery(10).parse({}).limit).toBe(10)
  })

  it("shapes a registry page with nested pagination", () => {
    const schema = page(Item)
    const value = { data: [{ id: "a" }], pagination: { hasMore: true, nextCursor: "c", total: 3 } }
    expect(schema.parse(value)).toEqual(value)
    expect(schema.parse({ data: [], pagination: { hasMore: false, nextCursor: null, total: 0 } }).pagination.nextCursor).toBeNull()
    expect(schema.safeParse({ data: [], hasMore: false, nextCursor: null, total: 0 }).success).toBe(false)
  })

  it("shapes every other list form of the seeds", () => {
    expect(cursorPage(Item).parse({ data: [], hasMore: false, nextCursor: null })).toEqual({ data: [], hasMore: false, nextCursor: null })
    expect(cursorList(Item).parse({ data: [{ id: "i" }], cursor: "" })).toEqual({ data: [{ id: "i" }], cursor: "" })
    expect(jobPage(Item).parse({ data: [], pagination: { limit: 25, cursor: "", nextCursor: "n", count: 0 } }).pagination.count).toBe(0)
    expect(deadLetterPage(Item).parse({ data: [], pagination: { limit: 25, cursor: "" } }).pagination.limit).toBe(25)
    expect(totalList(Item).parse({ data: [{ id: "s" }], total: 1 }).total).toBe(1)
    expect(dataList(Item).parse({ data: [{ id: "e" }] }).data).toHaveLength(1)
    expect(totalList(Item).safeParse({ data: [], total: -1 }).success).toBe(false)
  })
})
