import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { API_DIR, gatewayPath, PAGES, renderApiReference } from "../scripts/api-reference.js"
import { CATALOGUES, exportedCatalogues } from "../packages/contracts/scripts/route-table.js"
import * as Contracts from "@core/contracts"
import { OpenApiDocument } from "@core/gateway"

/** `docs/api/` is what `npm run generate:api` writes from the contracts, and covers every route. */
describe("the API reference (docs/api)", () => {
  const pages = renderApiReference()

  it("is up to date with the contracts: run `npm run generate:api` when this fails", () => {
    const committed = readdirSync(API_DIR).filter((file) => file.endsWith(".md")).sort()
    expect(committed).toEqual([...pages.keys()].sort())
    for (const [file, text] of pages) expect(readFileSync(join(API_DIR, file), "utf8"), file).toBe(text)
  })

  it("documents every catalogued route once, on its service's page, with its method, path, request, responses and errors", () => {
    const exported = exportedCatalogues(Contracts as unknown as Record<string, unknown>)
    // One page per declared service (`ServiceDeclarations.ts`), every catalogue of it there.
    expect(PAGES.map((page) => page.service).sort()).toEqual([...Contracts.SERVICE_NAMES].sort())
    for (const entry of CATALOGUES) {
      const page = pages.get(PAGES.find((candidate) => candidate.service === entry.service.name)!.file)!
      const section = page.slice(page.indexOf(`## ${entry.name}\n`))
      for (const [name, route] of Object.entries(exported.get(`${entry.namespace}.${entry.name}`)!)) {
        expect(section, `${entry.name}.${name}`).toContain(`### \`${route.method} ${gatewayPath(route, entry.service)}\`\n\n\`${route.operationId ?? name}\` — `)
      }
    }
    const registry = pages.get("registry.md")!
    const create = registry.slice(registry.indexOf("### `POST /api/v1/platforms`"), registry.indexOf("### ", registry.indexOf("### `POST /api/v1/platforms`") + 4))
    expect(create).toContain("| `slug` | string (pattern `^[a-z0-9-]+$`, length 1–63) | yes |  |")
    expect(create).toContain("- **201** Created:")
    expect(create).toMatch(/Errors \(the error envelope .*\): 400 Bad request, 401 Unauthorized, 403 Forbidden/)
    expect(registry).toContain("Path parameters:")
  })

  it("lists the operations of the OpenAPI document, at the same paths (the gateway's own probes aside)", () => {
    const documented = [...pages.values()].flatMap((text) => Array.from(text.matchAll(/^### `([A-Z]+ [^`]+)`$/gm), (match) => match[1]))
    const own = new Set(Object.values(OpenApiDocument.GatewayRoutes).map((route) => `${route.method} ${route.path}`))
    const operations = Object.entries(OpenApiDocument.document().paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .filter((operation) => !own.has(operation))
    expect([...documented].sort()).toEqual([...operations].sort())
    expect(documented).toContain("GET /api/v1/provisioning/api/v1/provision/jobs/{jobId}")
    expect(documented).toContain("GET /api/v1/billing/api/billing/invoices")
    expect(documented).toContain("POST /api/v1/onboarding")
  })
})
