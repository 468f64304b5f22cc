import { afterEach, describe, expect, it } from "vitest"
import { CoreResponseValidationError, createClient } from "../src/index.js"
import { startScriptServer, type Reply, type ScriptServer } from "./script-server.js"

let server: ScriptServer | undefined
afterEach(async () => server?.close())

const collect = async <T>(items: AsyncIterable<T>): Promise<Array<T>> => {
  const all: Array<T> = []
  for await (const item of items) all.push(item)
  return all
}

describe("paginate", () => {
  it("follows nextCursor across three pages while hasMore, keeping the query", async () => {
    server = await startScriptServer([
      { status: 200, body: { data: [{ id: 1 }, { id: 2 }], nextCursor: "c2", hasMore: true, total: 5 } },
      { status: 200, body: { data: [{ id: 3 }, { id: 4 }], nextCursor: "c3", hasMore: true, total: 5 } },
      { status: 200, body: { data: [{ id: 5 }], nextCursor: null, hasMore: false, total: 5 } }
    ])
    const items = await collect(createClient({ baseUrl: server.url }).paginate<{ id: number }>("/api/v1/platforms", { query: { limit: 2 } }))
    expect(items.map((item) => item.id)).toEqual([1, 2, 3, 4, 5])
    expect(server.requests.map((r) => r.url)).toEqual([
      "/api/v1/platforms?limit=2",
      "/api/v1/platforms?limit=2&cursor=c2",
      "/api/v1/platforms?limit=2&cursor=c3"
    ])
  })

  it("follows the registry's { data, pagination: { hasMore, nextCursor } } form (decision 0234)", async () => {
    server = await startScriptServer([
      { status: 200, body: { data: [{ id: 1 }], pagination: { hasMore: true, nextCursor: "n2", total: 3 } } },
      { status: 200, body: { data: [{ id: 2 }], pagination: { hasMore: true, nextCursor: "n3", total: 3 } } },
      { status: 200, body: { data: [{ id: 3 }], pagination: { hasMore: false, nextCursor: null, total: 3 } } }
    ])
    const items = await collect(createClient({ baseUrl: server.url }).paginate<{ id: number }>("/api/v1/platforms", { query: { limit: 1 } }))
    expect(items.map((item) => item.id)).toEqual([1, 2, 3])
    expect(server.requests.map((r) => r.url)).toEqual([
      "/api/v1/platforms?limit=1",
      "/api/v1/platforms?limit=1&cursor=n2",
      "/api/v1/platforms?limit=1&cursor=n3"
    ])
  })

  it("follows the { data, cursor } form until the cursor is null", async () => {
    server = await startScriptServer([
      { status: 200, body: { data: ["a"], cursor: "2" } },
      { status: 200, body: { data: ["b"], cursor: "3" } },
      { status: 200, body: { data: ["c"], cursor: null } }
    ])
    const items = await collect(createClient({ baseUrl: server.url }).paginate<string>("/jobs", { cursorParam: "after" }))
    expect(items).toEqual(["a", "b", "c"])
    expect(server.requests.map((r) => r.url)).toEqual(["/jobs", "/jobs?after=2", "/jobs?after=3"])
  })

  it("stops at hasMore: false even when a cursor is present", async () => {
    server = await startScriptServer([{ status: 200, body: { data: [1], nextCursor: "c2", hasMore: false } }])
    expect(await collect(createClient({ baseUrl: server.url }).paginate("/x"))).toEqual([1])
    expect(server.requests).toHaveLength(1)
  })

  it("stops when a page repeats the cursor it was asked with", async () => {
    server = await startScriptServer(() => ({ status: 200, body: { data: [0], cursor: "same" } }))
    expect(await collect(createClient({ baseUrl: server.url }).paginate("/x"))).toEqual([0, 0])
    expect(server.requests).toHaveLength(2)
  })

  it("fetches no further page when the caller stops iterating", async () => {
    const page: Reply = { status: 200, body: { data: [1, 2, 3], nextCursor: "more", hasMore: true } }
    server = await startScriptServer([page, page])
    for await (const item of createClient({ baseUrl: server.url }).paginate<number>("/x")) if (item === 2) break
    expect(server.requests).toHaveLength(1)
  })

  it("fails with CoreResponseValidationError when a page has no data array", async () => {
    server = await startScriptServer([{ status: 200, body: { items: [] } }])
    await expect(collect(createClient({ baseUrl: server.url }).paginate("/x"))).rejects.toBeInstanceOf(CoreResponseValidationError)
  })
})
