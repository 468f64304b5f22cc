/**
 * Writes `src/generated/<namespace>.ts`: the SDK's resource methods from the route catalogue. For
 * each namespace of `scripts/sdk-namespaces.ts` (and each declared service in none, which gets a
 * namespace of one method per route), it writes
 *   - per route: its query type (from the query schema's JSON Schema on the input side: what goes
 *     on the wire, `limit?: number` where zod's `z.input` of a coerced number says `unknown`), its
 *     body type (`z.input`), its result type (the 2xx body, `z.output`) and, for a paged list, its
 *     item type, as plain TypeScript printed by the checker: no zod in the file;
 *   - per group: its interface (one member per method, documented with the route's summary) and its
 *     factory on a `RouteCaller`, each method one `call` or `pages` of its route.
 *
 *   npm run generate -w @core/sdk
 *   (node --conditions=source --import tsx scripts/generate-sdk.ts)
 *
 * `test/generated.test.ts` renders every file again and fails when a committed one differs.
 */
import { rmSync, writeFileSync, mkdirSync, readdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as Contracts from "@core/contracts"
import { pathParamNames, ROUTE_REFS, type RouteSpec } from "@core/contracts/routes"
import ts from "typescript"
import { z } from "zod"
import { HAND_WRITTEN, NAMESPACES, type GroupBinding, type MethodBinding, type NamespaceBinding } from "./sdk-namespaces.js"

const SDK = join(dirname(fileURLToPath(import.meta.url)), "..")
/** Where the generated files go. */
export const GENERATED_DIR = join(SDK, "src", "generated")

/** One ref table of `@core/contracts/routes` and the catalogue behind it. */
interface Table {
  readonly refs: string
  readonly catalogue: Readonly<Record<string, RouteSpec>>
}

/** Every ref table by its export name (`PlatformRouteRefs`), with its catalogue's routes. */
const tables = (): ReadonlyMap<string, Table> => {
  const found = new Map<string, Table>()
  const contracts = Contracts as unknown as Readonly<Record<string, Readonly<Record<string, unknown>>>>
  for (const [namespace, catalogues] of Object.entries(ROUTE_REFS as unknown as Readonly<Record<string, Readonly<Record<string, unknown>>>>)) {
    for (const name of Object.keys(catalogues)) {
      const refs = name.endsWith("Routes") ? `${name.slice(0, -"Routes".length)}RouteRefs` : `${name}Refs`
      const catalogue = (contracts[namespace]?.[name] ?? contracts[name]) as Readonly<Record<string, RouteSpec>> | undefined
      if (catalogue === undefined) throw new Error(`generate-sdk: ${namespace}.${name} is not exported from @core/contracts`)
      found.set(refs, { refs, catalogue })
    }
  }
  return found
}

/** Every route of a service's catalogues, as `RefTable.route` (`PlatformRouteRefs.listPlatforms`). */
export const routesOf = (service: Contracts.ServiceDeclaration): ReadonlyArray<string> => {
  const refsOf = new Map<unknown, string>()
  for (const [refs, table] of tables()) refsOf.set(table.catalogue, refs)
  return service.catalogues.flatMap((catalogue) => {
    const refs = refsOf.get(catalogue)
    if (refs === undefined) throw new Error(`generate-sdk: a catalogue of ${service.name} has no ref table`)
    return Object.keys(catalogue).map((route) => `${refs}.${route}`)
  })
}

/** One method as the generator writes it. */
interface Method {
  readonly name: string
  readonly table: string
  readonly routeName: string
  readonly route: RouteSpec
  readonly binding: MethodBinding
}

const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1)
const camel = (name: string): string => name.charAt(0).toLowerCase() + name.slice(1)

const bindingOf = (value: string | MethodBinding): MethodBinding => (typeof value === "string" ? { route: value } : value)

/** The namespaces to write: the listed ones, and one per declared service in none (a method per route). */
export const namespaces = (
  services: ReadonlyArray<Contracts.ServiceDeclaration> = Contracts.SERVICE_DECLARATIONS
): Readonly<Record<string, NamespaceBinding>> => {
  const listed = new Set(Object.values(NAMESPACES).map((namespace) => namespace.service))
  const defaults = Object.fromEntries(
    services.filter((service) => !listed.has(service.name) && HAND_WRITTEN[service.name] === undefined).map((service) => {
      const methods = Object.fromEntries(routesOf(service).map((route) => [route.slice(route.indexOf(".") + 1), route]))
      const title = pascal(camel(service.name.replace(/[^A-Za-z0-9]+(.)/g, (_, next: string) => next.toUpperCase())))
      const namespace: NamespaceBinding = {
        service: service.name,
        options: { name: `${title}CallOptions`, type: `Pick<CallOptions, "signal" | "headers" | "idempotencyKey">`, doc: `Per-call options of the ${service.name} service's methods.` },
        groups: { "": { interface: `${title}Client`, doc: `${service.title} (\`client.${camel(title)}\`, \`${service.prefix}\`): one method per route of its catalogues, named after the route.`, methods } }
      }
      return [camel(title), namespace]
    })
  )
  return { ...NAMESPACES, ...defaults }
}

/** The methods of a group, resolved against the ref tables. */
const methodsOf = (group: GroupBinding, all: ReadonlyMap<string, Table>): ReadonlyArray<Method> =>
  Object.entries(group.methods).map(([name, value]) => {
    const binding = bindingOf(value)
    const [table, routeName] = binding.route.split(".") as [string, string]
    const route = all.get(table)?.catalogue[routeName]
    if (route === undefined) throw new Error(`generate-sdk: no route ${binding.route} (method ${name})`)
    return { name, table, routeName, route, binding }
  })

/** A query schema's type on the input side, from its JSON Schema (flat: primitives, enums, arrays of them). */
const queryType = (schema: z.ZodType): string => {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema
  if (json.type !== "object" || json.properties === undefined) throw new Error("generate-sdk: a query schema that is not an object")
  const required = new Set(json.required ?? [])
  const members = Object.entries(json.properties).map(([name, property]) => {
    const doc = property.description === undefined ? "" : `  /** ${property.description}. */\n`
    return `${doc}  readonly ${name}${required.has(name) ? "" : "?"}: ${jsonType(property)}`
  })
  return members.length === 0 ? "{}" : `{\n${members.join("\n")}\n}`
}

interface JsonSchema {
  readonly type?: string | ReadonlyArray<string>
  readonly enum?: ReadonlyArray<unknown>
  readonly const?: unknown
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly oneOf?: ReadonlyArray<JsonSchema>
  readonly items?: JsonSchema
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: ReadonlyArray<string>
  readonly description?: string
}

const jsonType = (schema: JsonSchema): string => {
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  if (schema.enum !== undefined) return schema.enum.map((value) => JSON.stringify(value)).join(" | ")
  const union = schema.anyOf ?? schema.oneOf
  if (union !== undefined) return [...new Set(union.map(jsonType))].join(" | ")
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]
  if (types.length === 0) throw new Error(`generate-sdk: a query parameter without a type: ${JSON.stringify(schema)}`)
  return types.map((type) => {
    switch (type) {
      case "string":
        return "string"
      case "integer":
      case "number":
        return "number"
      case "boolean":
        return "boolean"
      case "null":
        return "null"
      case "array":
        return `ReadonlyArray<${schema.items === undefined ? "string" : jsonType(schema.items)}>`
      default:
        throw new Error(`generate-sdk: a query parameter of type ${type}`)
    }
  }).join(" | ")
}

/**
 * Types declared once, in their `home` namespace's file, and named wherever a route's type has
 * them (the others import them from there): `match` is the contracts' type as the routes carry it
 * (its printing is replaced by the name), `declare` what the name stands for — exact where the
 * route's schema is loose (an event's `data` is a record on the wire, its type's schema in the SDK).
 * In order: a later one's printing may be part of an earlier one's.
 */
export const NAMED_TYPES: ReadonlyArray<{ readonly name: string; readonly home: string; readonly doc: string; readonly declare: string; readonly match: string }> = [
  {
    name: "CoreEvent",
    home: "events",
    doc: "An event as the API lists, reads and streams it (and as a webhook delivers it), with its type's exact `data`: one member per type of the catalogue, told apart by `type`.",
    declare: "Events.AnyEvent",
    match: "Events.EventEnvelope"
  },
  { name: "EventType", home: "events", doc: "An event type of the catalogue (`tenant.created`, `job.succeeded`, …).", declare: "Events.EventType", match: "Events.EventType" }
]

/** A printed type with each of `NAMED_TYPES` named (`("a" | "b")[]` becomes `EventType[]`). */
const withNames = (text: string, printings: ReadonlyMap<string, string>, except?: string): string => {
  let named = text
  for (const { name } of NAMED_TYPES) if (name !== except) named = named.split(printings.get(`match:${name}`)!).join(name)
  return named.replace(/\((\w+)\)\[\]/g, "$1[]")
}

/** The route's own type names: `listPlatforms` → `ListPlatformsQuery`, `…Body`, `…Result`, `…Item`. */
const typeName = (method: Method, part: "Query" | "Body" | "Result" | "Item"): string => `${pascal(method.routeName)}${part}`

const accepts = (schema: z.ZodType | undefined, value: unknown): boolean => schema !== undefined && schema.safeParse(value).success

/** A member's doc comment: the route's name, method and path, its summary and the binding's note. */
const docOf = (method: Method, indent: string): string => {
  const text = `\`${method.routeName}\` (\`${method.route.method} ${method.route.path}\`): ${method.route.summary.replace(/\*\//g, "*\\/")}.${method.binding.note === undefined ? "" : ` ${method.binding.note}`}`
  return `${indent}/** ${text} */`
}

/** A generated method's positional parameters (name, type, default) and the `call` input it builds. */
const shapeOf = (method: Method): { readonly parameters: ReadonlyArray<string>; readonly input: string } => {
  const params = [...new Set(pathParamNames(method.route.path))]
  const parameters: Array<string> = params.map((name) => `${name}: string`)
  const parts: Array<string> = params.length === 0 ? [] : [`params: { ${params.join(", ")} }`]
  const query = method.route.request?.query
  const { queryField, bodyField } = method.binding
  if (query !== undefined && queryField !== undefined) {
    parameters.push(`${queryField}: ${typeName(method, "Query")}[${JSON.stringify(queryField)}]`)
    parts.push(`query: { ${queryField} }`)
  } else if (query !== undefined) {
    const type = method.binding.pages === true ? `Omit<${typeName(method, "Query")}, "cursor">` : typeName(method, "Query")
    if (accepts(query, {})) parameters.push(`query: ${type} = {}`)
    else parameters.push(`query: ${type}`)
    parts.push("query")
  }
  const body = method.route.request?.body
  if (body !== undefined && bodyField !== undefined) {
    parameters.push(`${bodyField}: ${typeName(method, "Body")}[${JSON.stringify(bodyField)}]`)
    parts.push(`body: { ${bodyField} }`)
  } else if (body !== undefined) {
    // A body the route does without is sent only when given; an empty one may be left out (and
    // is sent as `{}`), but not a change's (`PATCH`, `PUT`): a change names what it changes.
    if (accepts(body, undefined)) {
      parameters.push(`input?: ${typeName(method, "Body")}`)
      parts.push("...(input === undefined ? {} : { body: input })")
    } else if (accepts(body, {}) && method.route.method !== "PATCH" && method.route.method !== "PUT") {
      parameters.push(`input: ${typeName(method, "Body")} = {}`)
      parts.push("body: input")
    } else {
      parameters.push(`input: ${typeName(method, "Body")}`)
      parts.push("body: input")
    }
  }
  return { parameters, input: `{ ${parts.join(", ")} }`.replace("{  }", "{}") }
}

/** A parameter list as an interface member's type: `query: T = {}` becomes `query?: T`. */
const declared = (parameter: string): string => {
  const match = /^(\w+)(\?)?: (.*?)( = .*)?$/.exec(parameter)
  if (match === null) throw new Error(parameter)
  const [, name, optional, type, initial] = match
  return `${name}${optional !== undefined || initial !== undefined ? "?" : ""}: ${type}`
}

const printFlags = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.InTypeAlias | ts.TypeFormatFlags.UseStructuralFallback

/**
 * The checker's printing of each route's body, result and item types (by `typeName`), from the
 * SDK's own `CallInput`, `CallResult` and `PageItem` of the route's ref: what `call` takes and gives.
 */
const printTypes = (methods: ReadonlyArray<Method>): ReadonlyMap<string, string> => {
  const probe = join(SDK, "src", `__generate-sdk-${process.pid}.ts`)
  const wanted = new Map<string, string>()
  for (const method of methods) {
    const ref = `typeof ${method.table}.${method.routeName}`
    if (method.route.request?.body !== undefined) wanted.set(typeName(method, "Body"), `Exclude<CallInput<${ref}>["body"], undefined>`)
    wanted.set(typeName(method, "Result"), `CallResult<${ref}>`)
    if (method.binding.pages === true) wanted.set(typeName(method, "Item"), `PageItem<${ref}>`)
  }
  const tablesUsed = [...new Set(methods.map((method) => method.table))].sort()
  for (const named of NAMED_TYPES) {
    wanted.set(`match:${named.name}`, named.match)
    wanted.set(`declare:${named.name}`, named.declare)
  }
  const aliasOf = (name: string) => name.replace(/^(match|declare):/, "Named_$1_")
  writeFileSync(probe, [
    `import type { ${tablesUsed.join(", ")} } from "@core/contracts/routes"`,
    `import type { Events } from "@core/contracts"`,
    `import type { CallInput, CallResult, PageItem } from "./call.js"`,
    ...[...wanted].map(([name, type]) => `export type ${aliasOf(name)} = ${type}`),
    ""
  ].join("\n"))
  try {
    const program = ts.createProgram([probe], {
      target: ts.ScriptTarget.ES2022,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      customConditions: ["source"],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: []
    })
    const checker = program.getTypeChecker()
    const source = program.getSourceFile(probe)
    if (source === undefined) throw new Error("generate-sdk: the probe did not load")
    const errors = ts.getPreEmitDiagnostics(program, source)
    if (errors.length > 0) throw new Error(ts.formatDiagnostics(errors, { getCanonicalFileName: (name) => name, getCurrentDirectory: () => SDK, getNewLine: () => "\n" }))
    const printed = new Map<string, string>()
    for (const statement of source.statements) {
      if (!ts.isTypeAliasDeclaration(statement)) continue
      const text = checker.typeToString(checker.getTypeAtLocation(statement.name), undefined, printFlags)
      if (/\bimport\(|\bany\b|\.\.\.\s*\d+ more|\bz\.|\$[A-Za-z]/.test(text)) throw new Error(`generate-sdk: ${statement.name.text} prints as ${text}`)
      printed.set(statement.name.text.replace(/^Named_(match|declare)_/, "$1:"), text)
    }
    return printed
  } finally {
    rmSync(probe, { force: true })
  }
}

/** The ref tables a group's methods call, in the order of their first use. */
const tablesOf = (methods: ReadonlyArray<Method>): ReadonlyArray<string> => [...new Set(methods.map((method) => method.table))]

/** The text of `src/generated/<name>.ts`. */
export const renderNamespace = (name: string, namespace: NamespaceBinding): string => {
  const all = tables()
  const groups = Object.entries(namespace.groups).map(([key, group]) => ({ key, group, methods: methodsOf(group, all) }))
  // The routes whose types the file declares: those of the groups with their own interface.
  const typed = new Map<string, Method>()
  for (const { group, methods } of groups) {
    if (group.sharesInterface === true) continue
    for (const method of methods) {
      const id = `${method.table}.${method.routeName}`
      const known = typed.get(id)
      if (known === undefined) typed.set(id, method)
      else if (method.binding.pages === true && known.binding.pages !== true) typed.set(id, { ...known, binding: { ...known.binding, pages: true } })
    }
  }
  const seen = new Map<string, string>()
  for (const method of typed.values()) {
    const other = seen.get(method.routeName)
    if (other !== undefined && other !== method.table) throw new Error(`generate-sdk: ${name}: two routes named ${method.routeName} (${other}, ${method.table})`)
    seen.set(method.routeName, method.table)
  }
  const printings = printTypes([...typed.values()])
  const printed = new Map([...printings].filter(([key]) => !key.includes(":")).map(([key, text]) => [key, withNames(text, printings)]))

  const lines: Array<string> = [
    "// Generated by packages/sdk/scripts/generate-sdk.ts from the route catalogue and",
    "// scripts/sdk-namespaces.ts: do not edit. After changing either, run `npm run generate -w @core/sdk`",
    "// (test/generated.test.ts checks). Plain types only: nothing here loads zod.",
    `import { ${[...new Set(groups.flatMap(({ methods }) => methods.map((method) => method.table)))].sort().join(", ")} } from "@core/contracts/routes"`,
    `import type { CallOptions, RouteCaller } from "../call.js"`,
    ...(namespace.handTypes === undefined ? [] : [`import type { ${namespace.handTypes.join(", ")} } from "../resources/${name}.js"`]),
    "",
    `/** ${namespace.options.doc} */`,
    `export type ${namespace.options.name} = ${namespace.options.type}`
  ]

  const body: Array<string> = []
  for (const named of NAMED_TYPES) {
    if (named.home === name) body.push("", `/** ${named.doc} */`, `export type ${named.name} = ${withNames(printings.get(`declare:${named.name}`)!, printings, named.name)}`)
  }
  for (const method of typed.values()) {
    const query = method.route.request?.query
    const title = `\`${method.routeName}\` (\`${method.route.method} ${method.route.path}\`)`
    if (query !== undefined) body.push("", `/** The query of ${title}. */`, `export interface ${typeName(method, "Query")} ${withNames(queryType(query), printings)}`)
    for (const part of ["Body", "Result", "Item"] as const) {
      const type = printed.get(typeName(method, part))
      if (type === undefined) continue
      const what = part === "Body" ? "The body of" : part === "Result" ? "What answers" : "One item of the pages of"
      body.push("", `/** ${what} ${title}. */`, `export type ${typeName(method, part)} = ${type}`)
    }
  }
  // The named types this file uses and does not declare come from their home's file.
  const imported = NAMED_TYPES.filter((named) => named.home !== name && body.some((line) => new RegExp(`\\b${named.name}\\b`).test(line)))
  const imports = [...new Set(imported.map((named) => named.home))].map((home) =>
    `import type { ${imported.filter((named) => named.home === home).map((named) => named.name).join(", ")} } from "./${home}.js"`)
  lines.splice(lines.indexOf(""), 0, ...imports)
  lines.push(...body)

  const options = namespace.options.name
  const subgroups = groups.filter(({ key }) => key !== "")
  const factoryName = (key: string, group: GroupBinding) => (key === "" ? `${name}Methods` : group.sharesInterface === true ? `${name}${pascal(key)}` : camel(group.interface))
  for (const { key, group, methods } of groups) {
    const own = methods.filter((method) => method.binding.signature !== undefined)
    if (group.sharesInterface !== true) {
      const shared = groups.filter((other) => other.group.interface === group.interface && other.group.sharesInterface !== true)
      if (shared.length > 1) throw new Error(`generate-sdk: ${name}: two groups declare ${group.interface}`)
      lines.push("", `/** ${group.doc} */`, `export interface ${group.interface} {`)
      for (const method of methods) {
        lines.push(docOf(method, "  "))
        if (method.binding.signature !== undefined) {
          lines.push(`  readonly ${method.name}: ${method.binding.signature}`)
          continue
        }
        const parameters = [...shapeOf(method).parameters.map(declared), `options?: ${options}`]
        const result = method.binding.pages === true ? `AsyncGenerator<${typeName(method, "Item")}, void, undefined>` : `Promise<${typeName(method, "Result")}>`
        lines.push(`  readonly ${method.name}: (${parameters.join(", ")}) => ${result}`)
      }
      if (key === "") {
        for (const sub of subgroups) lines.push(`  /** ${sub.group.doc} */`, `  readonly ${sub.key}: ${sub.group.interface}`)
      }
      lines.push("}")
    }
    const handType = own.length === 0 ? "" : `, own: Pick<${group.interface}, ${own.map((method) => JSON.stringify(method.name)).join(" | ")}>`
    const doc = `/** The ${key === "" ? `\`${name}\` namespace's` : `\`${key}\``} methods on \`caller\`${own.length === 0 ? "" : " (with the hand-written ones, `own`)"}. */`
    const factory = factoryName(key, group)
    if (group.sharesInterface === true) {
      // The same methods on other ref tables: the primary group's factory, given this group's tables.
      const primary = groups.find((other) => other.group.interface === group.interface && other.group.sharesInterface !== true)
      if (primary === undefined) throw new Error(`generate-sdk: ${name}.${key} shares ${group.interface}, which no group declares`)
      const order = tablesOf(primary.methods)
      const mapped = new Map<string, string>()
      primary.methods.forEach((method, index) => {
        const mine = methods[index]
        if (mine === undefined || mine.name !== method.name || mine.routeName !== method.routeName || mine.binding.signature !== undefined) {
          throw new Error(`generate-sdk: ${name}.${key} must have ${primary.key}'s methods, on routes of the same names, in the same order`)
        }
        if ((mapped.get(method.table) ?? mine.table) !== mine.table) throw new Error(`generate-sdk: ${name}.${key}: ${method.table} maps to two tables`)
        mapped.set(method.table, mine.table)
      })
      const tables = order.map((table) => (mapped.get(table) === table ? table : `${mapped.get(table)} as unknown as typeof ${table}`))
      lines.push("", doc, `export const ${factory} = (caller: RouteCaller): ${group.interface} => ${factoryName(primary.key, primary.group)}On(caller, ${tables.join(", ")})`)
      continue
    }
    const sharers = groups.some((other) => other.group.interface === group.interface && other.group.sharesInterface === true)
    const order = tablesOf(methods)
    const tableOf = (table: string): string => (sharers ? `t${order.indexOf(table)}` : table)
    if (sharers) {
      if (own.length > 0 || key === "") throw new Error(`generate-sdk: ${name}.${key}: a shared group has no hand-written methods and is not the root`)
      lines.push("", `const ${factory}On = (caller: RouteCaller, ${order.map((table, index) => `t${index}: typeof ${table}`).join(", ")}): ${group.interface} => {`)
    } else {
      lines.push("", doc, `export const ${factory} = (caller: RouteCaller${handType}): ${group.interface} => {`)
    }
    const used = [...new Set(methods.filter((method) => method.binding.signature === undefined).map((method) => (method.binding.pages === true ? "pages" : "call")))].sort()
    if (used.length > 0) lines.push(`  const { ${used.join(", ")} } = caller`)
    lines.push("  return {")
    const members: Array<string> = []
    for (const method of methods) {
      if (method.binding.signature !== undefined) {
        members.push(`    ${method.name}: own.${method.name}`)
        continue
      }
      const { parameters, input } = shapeOf(method)
      const invoke = method.binding.pages === true ? "pages" : "call"
      // A result that names a type stricter than the route's schema (`CoreEvent`) is that type.
      const answer = method.binding.pages === true ? `AsyncGenerator<${typeName(method, "Item")}, void, undefined>` : `Promise<${typeName(method, "Result")}>`
      const stricter = NAMED_TYPES.some((named) => named.declare !== named.match && new RegExp(`\\b${named.name}\\b`).test(printed.get(typeName(method, method.binding.pages === true ? "Item" : "Result")) ?? ""))
      members.push(`    ${method.name}: (${[...parameters, "options?"].map((parameter) => parameter.replace(/: [^=]*( = .*)?$/, "$1")).join(", ")}) => ${invoke}(${tableOf(method.table)}.${method.routeName}, ${input}, options)${stricter ? ` as ${answer}` : ""}`)
    }
    if (key === "") for (const sub of subgroups) members.push(`    ${sub.key}: ${factoryName(sub.key, sub.group)}(caller)`)
    lines.push(members.join(",\n"), "  }", "}")
    if (sharers) lines.push("", doc, `export const ${factory} = (caller: RouteCaller): ${group.interface} => ${factory}On(caller, ${order.join(", ")})`)
  }
  lines.push("")
  return lines.join("\n")
}

/** Every generated file: its name and text. */
export const renderAll = (): ReadonlyMap<string, string> =>
  new Map(Object.entries(namespaces()).map(([name, namespace]) => [`${name}.ts`, renderNamespace(name, namespace)]))

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  mkdirSync(GENERATED_DIR, { recursive: true })
  const files = renderAll()
  for (const file of readdirSync(GENERATED_DIR)) if (!files.has(file)) rmSync(join(GENERATED_DIR, file))
  for (const [file, text] of files) writeFileSync(join(GENERATED_DIR, file), text)
  console.log(`generate-sdk: wrote ${[...files.keys()].map((file) => `src/generated/${file}`).join(", ")}`)
}
