import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import { describe, expect, expectTypeOf, it } from "vitest"
import { z } from "zod"
import { CATALOGUES, renderRouteTable, ROUTE_TABLE_FILE } from "../scripts/route-table.js"
import * as Contracts from "../src/index.js"
import { defineRoutes, GATEWAY_PREFIXES, Iam, Registry, routeRef } from "../src/index.js"
import {
  AccountRouteRefs,
  AuthorizationRouteRefs,
  DeviceRouteRefs,
  PlatformRouteRefs,
  ROUTE_REFS,
  type RouteOf,
  type RouteRef
} from "../src/RouteTable.js"

describe("the generated route table (src/generated/routeTable.ts)", () => {
  it("is up to date with the catalogue", () => {
    expect(
      readFileSync(ROUTE_TABLE_FILE, "utf8"),
      "src/generated/routeTable.ts is out of date with the route catalogue: run `npm run generate -w @core/contracts` and commit it"
    ).toBe(renderRouteTable())
  })

  it("holds every route of every exported catalogue, as the catalogue declares it, under its service's gateway prefix", () => {
    const refs = ROUTE_REFS as unknown as Record<string, Record<string, Record<string, RouteRef>>>
    for (const [name, catalogue] of Object.entries(Iam.IdentityRoutes)) {
      const area = CATALOGUES.find((entry) => entry.namespace === "Iam" && name in (Iam as unknown as Record<string, object>)[entry.name])
      // The root's RFC 8414 metadata lies under one of identity's further prefixes: no prefix before it.
      expect(refs.Iam[area!.name][name], name).toEqual(routeRef(catalogue, catalogue.path.startsWith("/.well-known/oauth-authorization-server/") ? "" : GATEWAY_PREFIXES.identity))
    }
    for (const [name, catalogue] of Object.entries(Registry.RegistryRoutes)) {
      // The registry's catalogue already declares the gateway path: no prefix goes before it.
      const area = CATALOGUES.find((entry) => entry.namespace === "Registry" && name in (Registry as unknown as Record<string, object>)[entry.name])
      expect(refs.Registry[area!.name][name], name).toEqual(routeRef(catalogue, ""))
    }
    expect(AuthorizationRouteRefs.deleteGrant).toEqual({ method: "DELETE", path: "/api/core/grants/{id}", successStatus: 204, prefix: "/api/v1/iam" })
    expect(DeviceRouteRefs.token.contentTypes?.[0]).toBe("application/x-www-form-urlencoded")
    expect(PlatformRouteRefs.getPlatform).toMatchObject({ path: "/api/v1/platforms/{platformId}", prefix: "" })
  })

  it("types each ref by its route's declaration (a phantom: nothing of it at run time)", () => {
    expectTypeOf<RouteOf<typeof AccountRouteRefs.deleteSession>>().toEqualTypeOf<typeof Iam.AccountRoutes.deleteSession>()
    expectTypeOf<RouteOf<typeof Iam.AccountRoutes.deleteSession>>().toEqualTypeOf<typeof Iam.AccountRoutes.deleteSession>()
    expectTypeOf(AccountRouteRefs.deleteSession.path).toEqualTypeOf<"/api/sessions/:id">()
    expect("~route" in AccountRouteRefs.deleteSession).toBe(false)
  })

  it("refuses to generate while an exported catalogue holds a route of no listed catalogue", () => {
    const ExtraRoutes = defineRoutes({
      getThing: { method: "GET", path: "/api/v1/things/:id", summary: "A thing", auth: "caller", responses: { 200: z.object({ id: z.string() }) } }
    })
    expect(() => renderRouteTable({ ...Contracts, ExtraRoutes })).toThrow(/ExtraRoutes \(getThing\) is in no catalogue of the table: add it to its service's declaration/)
  })
})

describe("@core/contracts/routes", () => {
  it("imports no zod (nor any other package): its module graph is the table, the prefixes and the path helpers", async () => {
    const result = await build({
      // Through the package's exports, as a client resolves the subpath.
      stdin: { contents: `export * from "@core/contracts/routes"`, resolveDir: fileURLToPath(new URL("..", import.meta.url)) },
      bundle: true,
      write: false,
      metafile: true,
      format: "esm",
      platform: "neutral",
      conditions: ["source"],
      logLevel: "silent"
    })
    const inputs = Object.keys(result.metafile.inputs)
    expect(inputs.filter((input) => input.includes("node_modules") || /zod/i.test(input))).toEqual([])
    expect(inputs.some((input) => input.endsWith("generated/routeTable.ts"))).toBe(true)
    expect(Object.values(result.metafile.outputs).flatMap((output) => output.imports)).toEqual([])
  })
})
