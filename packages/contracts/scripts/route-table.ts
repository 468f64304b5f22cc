/**
 * Writes `src/generated/routeTable.ts`: every catalogued route as a zod-free `RouteRef` (method,
 * path, content types, success status, gateway prefix), typed by its declaration as a phantom, for
 * `@core/contracts/routes` (and so the SDK, whose bundle must not carry zod: decision 0173).
 *
 *   npm run generate -w @core/contracts
 *   (node --conditions=source --import tsx scripts/route-table.ts)
 *
 * `test/RouteTable.test.ts` renders the table again and fails when the committed file differs.
 */
import { writeFileSync } from "node:fs"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as Contracts from "../src/index.js"
import { routeRef, type RouteRef } from "../src/RouteRefs.js"
import type { RouteSpec } from "../src/Routes.js"
import { GATEWAY_PREFIXES, publicPrefixOf, SERVICE_DECLARATIONS, type ServiceDeclaration } from "../src/ServiceDeclarations.js"

type Catalogue = Readonly<Record<string, RouteSpec>>

/** One catalogue of the table: where the contracts export it and the service that serves it. */
export interface CatalogueEntry {
  /** The namespace of `@core/contracts` that exports it (`Iam`, `Registry`), `""` for the root. */
  readonly namespace: string
  readonly name: string
  /** The declaration of the service that serves it (`ServiceDeclarations.ts`). */
  readonly service: ServiceDeclaration
}

/**
 * The catalogues of the table, each route once: every catalogue of every service's declaration
 * (`src/ServiceDeclarations.ts`), named as `@core/contracts` exports it. Another exported catalogue
 * must be made of their routes (as `Iam.IdentityRoutes` and `Registry.RegistryRoutes` are), else
 * generating fails naming it.
 *
 * @throws Error when a declared catalogue is not exported from `@core/contracts`.
 */
export const cataloguesOf = (
  contracts: Readonly<Record<string, unknown>> = Contracts,
  services: ReadonlyArray<ServiceDeclaration> = SERVICE_DECLARATIONS
): ReadonlyArray<CatalogueEntry> => {
  const names = new Map<unknown, string>()
  for (const [name, catalogue] of exportedCatalogues(contracts)) if (!names.has(catalogue)) names.set(catalogue, name)
  return services.flatMap((service) =>
    service.catalogues.map((catalogue): CatalogueEntry => {
      const qualified = names.get(catalogue)
      if (qualified === undefined) throw new Error(`route-table: a catalogue of the ${service.name} service is not exported from @core/contracts`)
      const dot = qualified.indexOf(".")
      return dot === -1 ? { namespace: "", name: qualified, service } : { namespace: qualified.slice(0, dot), name: qualified.slice(dot + 1), service }
    })
  )
}

/** Where the generated file goes. */
export const ROUTE_TABLE_FILE = fileURLToPath(new URL("../src/generated/routeTable.ts", import.meta.url))

const isRoute = (value: unknown): value is RouteSpec =>
  typeof value === "object" && value !== null &&
  typeof (value as RouteSpec).method === "string" && typeof (value as RouteSpec).path === "string" &&
  typeof (value as RouteSpec).responses === "object"

const isCatalogue = (value: unknown): value is Catalogue =>
  typeof value === "object" && value !== null && !Array.isArray(value) &&
  Object.keys(value).length > 0 && Object.values(value).every(isRoute)

const isNamespace = (value: unknown): value is Readonly<Record<string, unknown>> =>
  Object.prototype.toString.call(value) === "[object Module]"

/** Every catalogue the contracts export, at the root and one namespace down, by `Namespace.name`. */
export const exportedCatalogues = (contracts: Readonly<Record<string, unknown>>): ReadonlyMap<string, Catalogue> => {
  const found = new Map<string, Catalogue>()
  for (const [name, value] of Object.entries(contracts)) {
    if (isCatalogue(value)) found.set(name, value)
    else if (isNamespace(value)) {
      for (const [inner, catalogue] of Object.entries(value)) if (isCatalogue(catalogue)) found.set(`${name}.${inner}`, catalogue)
    }
  }
  return found
}

/** The catalogues of the table, from the services' declarations. */
export const CATALOGUES: ReadonlyArray<CatalogueEntry> = cataloguesOf()

const qualified = (entry: CatalogueEntry): string => (entry.namespace === "" ? entry.name : `${entry.namespace}.${entry.name}`)

/** The export name of a catalogue's refs: `AccountRoutes` → `AccountRouteRefs`. */
export const refsName = (name: string): string => (name.endsWith("Routes") ? `${name.slice(0, -"Routes".length)}RouteRefs` : `${name}Refs`)

/** The name of the `GATEWAY_PREFIXES` key of a prefix, for the generated constants. */
const PREFIX_NAMES: ReadonlyMap<string, string> = new Map(
  Object.entries(GATEWAY_PREFIXES).reverse().map(([name, prefix]) => [prefix as string, name])
)

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/
const key = (name: string): string => (IDENTIFIER.test(name) ? name : JSON.stringify(name))

const literal = (ref: RouteRef, prefixes: ReadonlyMap<string, string>): string => {
  const parts = [`method: ${JSON.stringify(ref.method)}`, `path: ${JSON.stringify(ref.path)}`]
  if (ref.contentTypes !== undefined) parts.push(`contentTypes: [${ref.contentTypes.map((type) => JSON.stringify(type)).join(", ")}]`)
  parts.push(`successStatus: ${ref.successStatus}`, `prefix: ${prefixes.get(ref.prefix) ?? JSON.stringify(ref.prefix)}`)
  return `{ ${parts.join(", ")} }`
}

/**
 * The text of `src/generated/routeTable.ts` for `contracts` (the module namespace of
 * `@core/contracts`).
 *
 * @throws Error when a listed catalogue is missing, when two catalogues' refs would share a name,
 *   or when an exported catalogue holds a route of no listed catalogue.
 */
export const renderRouteTable = (
  contracts: Readonly<Record<string, unknown>> = Contracts,
  catalogues: ReadonlyArray<CatalogueEntry> = cataloguesOf(contracts)
): string => {
  const exported = exportedCatalogues(contracts)
  const listed = catalogues.map((entry) => {
    const catalogue = exported.get(qualified(entry))
    if (catalogue === undefined) throw new Error(`route-table: no catalogue ${qualified(entry)} is exported from @core/contracts`)
    return { entry, catalogue }
  })

  const names = new Set<string>()
  for (const { entry } of listed) {
    if (names.has(refsName(entry.name))) throw new Error(`route-table: two catalogues would both be ${refsName(entry.name)}`)
    names.add(refsName(entry.name))
  }

  const covered = new Set<RouteSpec>(listed.flatMap(({ catalogue }) => Object.values(catalogue)))
  for (const [name, catalogue] of exported) {
    const missing = Object.keys(catalogue).filter((routeName) => !covered.has(catalogue[routeName]))
    if (missing.length > 0) {
      throw new Error(
        `route-table: ${name} (${missing.join(", ")}) is in no catalogue of the table: add it to its service's declaration in packages/contracts/src/ServiceDeclarations.ts`
      )
    }
  }

  const tables = listed.map(({ entry, catalogue }) => ({
    entry,
    refs: Object.entries(catalogue).map(([name, route]) => [name, routeRef(route, publicPrefixOf(entry.service, route.path))] as const)
  }))
  const used = new Set(tables.flatMap(({ refs }) => refs.map(([, ref]) => ref.prefix)).filter((prefix) => prefix !== ""))
  const prefixes = new Map([...used].map((prefix) => [prefix, PREFIX_NAMES.get(prefix) ?? prefix.replace(/\W+/g, "_")]))
  const namespaces = [...new Set(listed.map(({ entry }) => entry.namespace))]

  const lines: Array<string> = [
    "// Generated by packages/contracts/scripts/route-table.ts from the services' declarations",
    "// (src/ServiceDeclarations.ts) and their route catalogues: do not edit. After changing either, run",
    "// `npm run generate -w @core/contracts` (test/RouteTable.test.ts checks).",
    "// Only types come from the catalogue, so this module (and `@core/contracts/routes`) carries no zod.",
    ...(namespaces.includes("") ? [`import type * as Root from "../index.js"`] : []),
    ...(namespaces.some((namespace) => namespace !== "")
      ? [`import type { ${namespaces.filter((namespace) => namespace !== "").join(", ")} } from "../index.js"`]
      : []),
    `import type { RouteRefs } from "../RouteRefs.js"`,
    "",
    "/**",
    " * The prefix the gateway serves each service under, as `ServiceDeclarations.ts` declares it: a request",
    " * to `<prefix>/<rest>` reaches the service as `/<rest>` (the vault's and the registry's further",
    " * prefixes are forwarded whole).",
    " */",
    "export const GATEWAY_PREFIXES = {",
    Object.entries(GATEWAY_PREFIXES).map(([name, prefix]) => `  ${key(name)}: ${JSON.stringify(prefix)}`).join(",\n"),
    "} as const",
    "",
    "/** A key of `GATEWAY_PREFIXES`. */",
    "export type GatewayService = keyof typeof GATEWAY_PREFIXES",
    "",
    ...[...prefixes].map(([prefix, name]) => `const ${name} = ${PREFIX_NAMES.has(prefix) ? `GATEWAY_PREFIXES.${name}` : JSON.stringify(prefix)}`)
  ]

  for (const { entry, refs } of tables) {
    const declared = entry.namespace === "" ? `Root.${entry.name}` : qualified(entry)
    lines.push(
      "",
      `/** \`${qualified(entry)}\` without its schemas (${entry.service.name}, ${entry.service.prefix}). */`,
      `export const ${refsName(entry.name)}: RouteRefs<typeof ${declared}> = {`,
      refs.map(([name, ref]) => `  ${key(name)}: ${literal(ref, prefixes)}`).join(",\n"),
      "} as const"
    )
  }

  lines.push(
    "",
    "/**",
    " * Every catalogue's refs, by namespace and catalogue name. Its type names each table's own, so",
    " * the emitted declarations stay one line a catalogue instead of every route spelled out again.",
    " */",
    "export const ROUTE_REFS: {",
    namespaces
      .map((namespace) => {
        const members = listed
          .filter(({ entry }) => entry.namespace === namespace)
          .map(({ entry }) => `readonly ${entry.name}: typeof ${refsName(entry.name)}`)
          .join("; ")
        return namespace === "" ? `  ${members}` : `  readonly ${namespace}: { ${members} }`
      })
      .join("\n"),
    "} = {",
    namespaces
      .map((namespace) => {
        const members = listed
          .filter(({ entry }) => entry.namespace === namespace)
          .map(({ entry }) => `${entry.name}: ${refsName(entry.name)}`)
          .join(", ")
        return namespace === "" ? `  ${members}` : `  ${namespace}: { ${members} }`
      })
      .join(",\n"),
    "}",
    ""
  )
  return lines.join("\n")
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(ROUTE_TABLE_FILE, renderRouteTable())
  console.log(`route-table: wrote ${ROUTE_TABLE_FILE}`)
}
