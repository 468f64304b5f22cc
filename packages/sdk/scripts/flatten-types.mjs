// The SDK's main entry as plain types (decision 0635). tsc's declarations of the SDK name
// the contracts' zod-inferred types (`Registry.CreatePlatformRequest`, `CallResult<typeof
// Routes.listPlatforms>`), so a user's `tsc` loaded and checked zod's and the contracts'
// declarations (and re-inferred every `z.output`) to check a file that only calls `createClient`.
// This step asks the checker for each such type once, here, and writes it out as a named alias in
// `dist/types.d.ts`; the SDK's own declarations then import that file and nothing of the contracts,
// which stay behind `@core/sdk/contracts` and `@core/sdk/routes` for users who import them.
//
// Exact by construction and checked: every alias is compared with the type it replaces
// (`Equal`, which tells `any`, `readonly` and optional members apart) in one program before any
// file is rewritten, and the rewritten declarations must compile with `skipLibCheck: false` and
// without zod in their program.
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, relative, sep } from "node:path"

const RESULT_HELPERS = { CallResult: "Result", PageItem: "Item", CallInput: "Input" }

/** A relative module specifier from `file` to `target` (both paths of .d.ts files; the specifier ends in .js). */
const specifier = (file, target) => {
  const path = relative(dirname(file), target).split(sep).join("/").replace(/\.d\.ts$/, ".js")
  return path.startsWith(".") ? path : `./${path}`
}

/** Rewrites the SDK's own declarations under `dist` (all but `dist/contracts/`, `contracts.d.ts`, `routes.d.ts`). */
export const flattenTypes = ({ sdk, dist }) => {
  const ts = createRequire(join(sdk, "package.json"))("typescript")
  const contractsDir = join(dist, "contracts") + sep
  const entriesWithZod = new Set([join(dist, "contracts.d.ts"), join(dist, "routes.d.ts")])
  const files = readdirSync(dist, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".d.ts") && !file.startsWith(`contracts${sep}`))
    .map((file) => join(dist, file))
    .filter((file) => !entriesWithZod.has(file))
  const typesFile = join(dist, "types.d.ts")
  const options = {
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: []
  }
  const program = ts.createProgram(files, options)
  const checker = program.getTypeChecker()
  const flags = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.InTypeAlias | ts.TypeFormatFlags.UseStructuralFallback

  /** alias path ("Registry.Platform", "PlatformRouteRefs.getPlatform.Result") → its printed type. */
  const aliases = new Map()
  /** per file: its replacements, the statements it drops, and the checks of its aliases. */
  const plans = []

  for (const file of files) {
    const source = program.getSourceFile(file)
    const fromContracts = new Set()
    const dropped = []
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement)) continue
      const resolved = ts.resolveModuleName(statement.moduleSpecifier.text, file, options, ts.sys).resolvedModule
      if (resolved === undefined || !resolved.resolvedFileName.startsWith(contractsDir)) continue
      const bindings = statement.importClause?.namedBindings
      if (bindings === undefined) throw new Error(`${file}: an import of the contracts without names`)
      if (ts.isNamespaceImport(bindings)) fromContracts.add(bindings.name.text)
      else for (const element of bindings.elements) fromContracts.add(element.name.text)
      dropped.push(statement)
    }
    if (fromContracts.size === 0) continue
    // `declare const Routes: typeof PlatformRouteRefs` (the source's annotated aliases of a ref table).
    const tableOf = new Map()
    for (const statement of source.statements) {
      if (!ts.isVariableStatement(statement) || statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue
      for (const declaration of statement.declarationList.declarations) {
        const type = declaration.type
        if (type !== undefined && ts.isTypeQueryNode(type) && ts.isIdentifier(type.exprName) && fromContracts.has(type.exprName.text)) {
          tableOf.set(declaration.name.text, type.exprName.text)
          dropped.push(statement)
        }
      }
    }
    const leftmost = (name) => (ts.isIdentifier(name) ? name.text : leftmost(name.left))
    const derived = (name) => fromContracts.has(name) || tableOf.has(name)
    const mentions = (node) => (ts.isIdentifier(node) && fromContracts.has(node.text)) || ts.forEachChild(node, mentions) === true
    const print = (node) => {
      const printed = checker.typeToString(checker.getTypeFromTypeNode(node), undefined, flags)
      if (/\bimport\(|\bany\b|\.\.\.\s*\d+ more|\bz\.|\$[A-Za-z]/.test(printed)) throw new Error(`${file}: ${node.getText(source)} prints as ${printed}`)
      return printed
    }
    const replacements = []
    const visit = (node) => {
      if (ts.isTypeReferenceNode(node)) {
        const head = leftmost(node.typeName)
        const helper = ts.isIdentifier(node.typeName) ? RESULT_HELPERS[node.typeName.text] : undefined
        const query = node.typeArguments?.[0]
        let alias
        if (fromContracts.has(head) && node.typeArguments !== undefined) {
          // `Vault.ToolInput<"search_docs">`: spelled out in place.
          if (!node.typeArguments.every((argument) => ts.isLiteralTypeNode(argument))) throw new Error(`${file}: ${node.getText(source)}: a generic type of the contracts`)
          replacements.push({ start: node.getStart(source), end: node.getEnd(), text: `(${print(node)})`, original: node.getText(source), inline: true })
          return
        } else if (fromContracts.has(head)) {
          alias = node.typeName.getText(source)
        } else if (helper !== undefined && query !== undefined && ts.isTypeQueryNode(query) && ts.isQualifiedName(query.exprName) && ts.isIdentifier(query.exprName.left) && derived(query.exprName.left.text)) {
          const table = tableOf.get(query.exprName.left.text) ?? query.exprName.left.text
          alias = `${table}.${query.exprName.right.text}.${helper}`
        }
        if (alias !== undefined) {
          const printed = print(node)
          if (aliases.has(alias) && aliases.get(alias) !== printed) throw new Error(`${alias}: two different types`)
          aliases.set(alias, printed)
          replacements.push({ start: node.getStart(source), end: node.getEnd(), text: alias, original: node.getText(source) })
          return
        }
      }
      if (ts.isMappedTypeNode(node) && mentions(node)) {
        // `{ [N in Vault.ToolName]: Vault.ToolInput<N> }`: one object type, spelled out in place.
        replacements.push({ start: node.getStart(source), end: node.getEnd(), text: print(node), original: node.getText(source), inline: true })
        return
      }
      ts.forEachChild(node, visit)
    }
    for (const statement of source.statements) if (!dropped.includes(statement)) visit(statement)
    plans.push({ file, source, dropped, replacements })
  }

  // The aliases as one module of nested namespaces.
  const tree = new Map()
  for (const [path, printed] of aliases) {
    const parts = path.split(".")
    let level = tree
    for (const part of parts.slice(0, -1)) {
      if (!level.has(part)) level.set(part, new Map())
      level = level.get(part)
    }
    level.set(parts.at(-1), printed)
  }
  const write = (level, indent) =>
    [...level].sort(([a], [b]) => a.localeCompare(b)).map(([name, value]) =>
      typeof value === "string"
        ? `${indent}export type ${name} = ${value};`
        : `${indent}export ${indent === "" ? "declare " : ""}namespace ${name} {\n${write(value, `${indent}    `)}\n${indent}}`
    ).join("\n")
  writeFileSync(typesFile, [
    "// Generated by scripts/flatten-types.mjs: the contracts' types as the SDK's methods take and",
    "// return them, written out so that the SDK's main entry needs neither zod nor the contracts.",
    "// The same types, with their schemas, are in `@core/sdk/contracts`.",
    write(tree, ""),
    ""
  ].join("\n"))

  // Each alias against the type it replaces, in the original declarations' scope.
  const checks = plans.map(({ file, replacements }, index) => {
    const check = `${file.replace(/\.d\.ts$/, "")}.flatten-check-${index}.ts`
    const lines = replacements.map(({ original, text, inline }, n) => `type __Check${n} = __Expect<__Equal<${original}, ${inline ? text : `__Flat.${text}`}>>;`)
    writeFileSync(check, [
      readFileSync(file, "utf8").replace(/^\/\/# sourceMappingURL=.*$/m, ""),
      `import type * as __Flat from "${specifier(file, typesFile)}";`,
      "type __Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;",
      "type __Expect<T extends true> = T;",
      ...lines,
      ""
    ].join("\n"))
    return check
  })
  try {
    const checked = ts.createProgram(checks, options)
    const errors = checks.flatMap((check) => ts.getPreEmitDiagnostics(checked, checked.getSourceFile(check)))
    if (errors.length > 0) throw new Error(`the written-out types differ from the contracts':\n${ts.formatDiagnostics(errors.slice(0, 20), { getCanonicalFileName: (name) => name, getCurrentDirectory: () => dist, getNewLine: () => "\n" })}`)
  } finally {
    for (const check of checks) rmSync(check, { force: true })
  }

  for (const { file, source, dropped, replacements } of plans) {
    const text = source.getFullText()
    const edits = [
      ...dropped.map((statement) => ({ start: statement.getFullStart(), end: statement.getEnd(), text: "" })),
      ...replacements
    ].sort((a, b) => b.start - a.start)
    let rewritten = text
    for (const edit of edits) rewritten = rewritten.slice(0, edit.start) + edit.text + rewritten.slice(edit.end)
    const names = [...new Set(replacements.filter(({ inline }) => !inline).map(({ text: alias }) => alias.split(".")[0]))].sort()
    writeFileSync(file, `import type { ${names.join(", ")} } from "${specifier(file, typesFile)}";\n${rewritten.replace(/^\n+/, "")}`)
  }

  // The main entry's program: no zod, no contracts, no error with skipLibCheck false.
  const entry = ts.createProgram([join(dist, "index.d.ts")], { ...options, skipLibCheck: false })
  const loaded = entry.getSourceFiles().map((file) => file.fileName).filter((name) => name.includes(`${sep}zod${sep}`) || name.startsWith(contractsDir))
  if (loaded.length > 0) throw new Error(`dist/index.d.ts still loads ${loaded.slice(0, 5).join(", ")}`)
  const errors = ts.getPreEmitDiagnostics(entry)
  if (errors.length > 0) throw new Error(ts.formatDiagnostics(errors.slice(0, 20), { getCanonicalFileName: (name) => name, getCurrentDirectory: () => dist, getNewLine: () => "\n" }))
  return { aliases: aliases.size, files: plans.length }
}
