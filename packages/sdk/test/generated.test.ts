import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { SERVICE_DECLARATIONS, Stacks } from "@core/contracts"
import { describe, expect, it } from "vitest"
import { GENERATED_DIR, namespaces, renderAll, renderNamespace, routesOf } from "../scripts/generate-sdk.js"
import { HAND_WRITTEN, type MethodBinding } from "../scripts/sdk-namespaces.js"
import type { CoreEvent, EventType } from "../src/index.js"

describe("the generated resources (src/generated/*.ts)", () => {
  it("are up to date with the catalogue and scripts/sdk-namespaces.ts", () => {
    for (const [file, text] of renderAll()) {
      expect(readFileSync(join(GENERATED_DIR, file), "utf8"), `src/generated/${file} is out of date: run \`npm run generate -w @core/sdk\` and commit it`).toBe(text)
    }
  }, 120_000)

  it("have a method for every route of every service the SDK generates, or say why not", () => {
    for (const namespace of Object.values(namespaces())) {
      const service = SERVICE_DECLARATIONS.find((declared) => declared.name === namespace.service)
      expect(service, namespace.service).toBeDefined()
      const bound = new Set(Object.values(namespace.groups).flatMap((group) =>
        Object.values(group.methods).map((method) => (typeof method === "string" ? method : (method as MethodBinding).route))
      ))
      const missing = routesOf(service!).filter((route) => !bound.has(route) && namespace.notServed?.[route.split(".")[1]!] === undefined)
      expect(missing, `${namespace.service}: routes without a method`).toEqual([])
    }
  })

  it("cover every declared service: generated, or written by hand for a stated reason", () => {
    const generated = new Set(Object.values(namespaces()).map((namespace) => namespace.service))
    for (const service of SERVICE_DECLARATIONS) expect(generated.has(service.name) || HAND_WRITTEN[service.name] !== undefined, service.name).toBe(true)
    // The hand-written list may only shrink: a namespace leaves it once it is generated.
    expect(Object.keys(HAND_WRITTEN).sort()).toEqual(["billing", "cli", "iam", "vault"])
  })

  it("give a newly declared service a namespace of one method per route, named after the route", () => {
    const inventory = { ...SERVICE_DECLARATIONS.find((service) => service.name === "stacks")!, name: "inventory", title: "Inventory", prefix: "/api/v1/inventory" }
    const generated = namespaces([...SERVICE_DECLARATIONS, inventory])
    expect(Object.keys(generated)).toContain("inventory")
    expect(Object.keys(generated.inventory!.groups[""]!.methods)).toEqual(Object.keys(Stacks.StackRoutes))
    const text = renderNamespace("inventory", generated.inventory!)
    expect(text).toContain("export interface InventoryClient {")
    expect(text).toContain("  readonly getStackVersion: (name: string, version: string, options?: InventoryCallOptions) => Promise<GetStackVersionResult>")
    expect(text).toContain("export const inventoryMethods = (caller: RouteCaller): InventoryClient => {")
  }, 120_000)

  it("type each event's data by its type (CoreEvent is a union told apart by type), and name the event types once", () => {
    const slugOf = (event: CoreEvent): string | undefined => (event.type === "tenant.created" ? event.data.slug : undefined)
    // @ts-expect-error without narrowing by type, data is any event type's
    const unnarrowed = (event: CoreEvent): string => event.data.slug
    expect(typeof unnarrowed).toBe("function")
    expect(slugOf({ type: "tenant.created", data: { slug: "shop" } } as CoreEvent)).toBe("shop")
    const type: EventType = "webhook.endpoint_disabled"
    expect(type).toBe("webhook.endpoint_disabled")
    // The committed files (the first test holds them to the generator's output).
    const files = readdirSync(GENERATED_DIR).map((file) => readFileSync(join(GENERATED_DIR, file), "utf8"))
    const union = files.join("\n").match(/^export type EventType = (.*)$/m)![1]!
    expect(files.reduce((count, text) => count + text.split(union).length - 1, 0)).toBe(1)
  })
})
