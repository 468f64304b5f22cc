import { describe, expect, expectTypeOf, it } from "vitest"
import { z } from "zod"
import {
  type BodyInput,
  buildPath,
  defineRoute,
  type ParamsOutput,
  type PathParamNames,
  pathParamNames,
  type QueryOutput,
  type SuccessBody,
  toOpenApiPath
} from "../src/index.js"

const getEntity = defineRoute({
  method: "GET",
  path: "/api/v1/platforms/:platformId/entities/{entityId}",
  summary: "Read an entity",
  auth: "caller",
  request: { query: z.object({ limit: z.coerce.number().default(25) }) },
  responses: { 200: z.object({ id: z.string() }), 404: null }
})

const createStack = defineRoute({
  method: "POST",
  path: "/api/v1/stacks",
  summary: "Create a stack template",
  auth: "caller", callers: ["user"],
  permission: "stacks:manage",
  request: { body: z.object({ name: z.string(), icon: z.string().optional() }) },
  responses: { 201: z.object({ id: z.string() }), 409: null }
})

describe("Routes", () => {
  it("keeps a route as the same plain data", () => {
    expect(getEntity.method).toBe("GET")
    expect(createStack.permission).toBe("stacks:manage")
    expect(Object.keys(createStack.responses)).toEqual(["201", "409"])
  })

  it("reads and fills both placeholder forms", () => {
    expect(pathParamNames(getEntity.path)).toEqual(["platformId", "entityId"])
    expect(toOpenApiPath(getEntity.path)).toBe("/api/v1/platforms/{platformId}/entities/{entityId}")
    expect(buildPath(getEntity.path, { platformId: "plt_1", entityId: "a/b c" })).toBe("/api/v1/platforms/plt_1/entities/a%2Fb%20c")
    expect(() => buildPath(getEntity.path, { platformId: "plt_1" })).toThrow("Missing path parameter entityId")
    expect(pathParamNames("/health")).toEqual([])
  })

  it("infers request and response types", () => {
    expectTypeOf<PathParamNames<typeof getEntity.path>>().toEqualTypeOf<"platformId" | "entityId">()
    expectTypeOf<ParamsOutput<typeof getEntity>>().toEqualTypeOf<Record<"platformId" | "entityId", string>>()
    expectTypeOf<QueryOutput<typeof getEntity>>().toEqualTypeOf<{ limit: number }>()
    expectTypeOf<BodyInput<typeof createStack>>().toEqualTypeOf<{ name: string; icon?: string | undefined }>()
    expectTypeOf<BodyInput<typeof getEntity>>().toEqualTypeOf<undefined>()
    expectTypeOf<SuccessBody<typeof createStack>>().toEqualTypeOf<{ id: string }>()
  })
})
