import { Registry, type RouteSpec } from "@core/contracts"
import { Route } from "@core/kernel"
import { describe, expect, it } from "vitest"
import { RegistryHandlers } from "../src/index.js"

const key = (route: RouteSpec) => `${route.method} ${route.path}`

/** The registry serves exactly what `Registry.RegistryRoutes` declares, each route from its own declaration. */
describe("the registry and its catalogue", () => {
  it("serves every catalogued route once, and nothing else", () => {
    const served = Route.served(RegistryHandlers)
    const catalogued = Object.values(Registry.RegistryRoutes) as ReadonlyArray<RouteSpec>
    expect(served.map(key).sort()).toEqual(catalogued.map(key).sort())
    expect(served.every((route) => catalogued.includes(route))).toBe(true)
  })
})
