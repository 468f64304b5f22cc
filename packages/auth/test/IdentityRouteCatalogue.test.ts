import { Iam, type RouteSpec } from "@core/contracts"
import { Route } from "@core/kernel"
import { describe, expect, it } from "vitest"
import { IdentityHandlers } from "../src/Identity.js"

const key = (route: RouteSpec) => `${route.method} ${route.path}`

/**
 * The route catalogue is the source of truth: the identity service serves exactly the routes
 * `Iam.IdentityRoutes` declares — a served route missing from the catalogue, or a catalogued route
 * nobody serves, fails here.
 */
describe("the identity service and its catalogue", () => {
  const served = Route.served(IdentityHandlers)
  const catalogued = Object.values(Iam.IdentityRoutes) as ReadonlyArray<RouteSpec>

  it("serves every catalogued route, once", () => {
    const servedKeys = served.map(key)
    expect(new Set(servedKeys).size).toBe(servedKeys.length)
    expect([...servedKeys].sort()).toEqual(catalogued.map(key).sort())
  })

  it("serves each route from its own declaration object, not a copy", () => {
    const declarations = new Set(catalogued)
    expect(served.filter((route) => !declarations.has(route))).toEqual([])
    console.log(`identity: ${served.length} routes served, ${catalogued.length} catalogued`)
  })
})
