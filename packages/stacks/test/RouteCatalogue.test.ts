import { Stacks, type RouteSpec } from "@core/contracts"
import { Route } from "@core/kernel"
import { describe, expect, it } from "vitest"
import { StacksHandlers } from "../src/index.js"

const key = (route: RouteSpec) => `${route.method} ${route.path}`

/** The catalogue serves exactly what `Stacks.StackRoutes` declares, each route from its own declaration. */
describe("the stack catalogue and its routes", () => {
  it("serves every catalogued route once, and nothing else", () => {
    const served = Route.served(StacksHandlers)
    const catalogued = Object.values(Stacks.StackRoutes) as ReadonlyArray<RouteSpec>
    expect(served.map(key).sort()).toEqual(catalogued.map(key).sort())
    expect(served.every((route) => catalogued.includes(route))).toBe(true)
  })
})
