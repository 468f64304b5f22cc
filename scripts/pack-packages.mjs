#!/usr/bin/env node
// Packs every public package (packages/*, not "private") the way a release does: `npm pack` in the
// package's folder, whose `prepack` script builds it (decision 0530). Runs in a copy of the working
// tree (tracked and untracked files, as `git ls-files` sees them, beside the repository's
// node_modules) so that the dist/ folders the builds write never appear in the repository, where the
// launchers of `core` and `core-server` would switch to them (decisions 0043, 0052).
//
//   node scripts/pack-packages.mjs --out <dir> [--jobs 2] [--only sdk,contracts]
//
// Prints one JSON object on stdout: { clone, tarballs: { "@core/sdk": "<out>/core-sdk-0.1.0.tgz", … } }.
import { execFileSync, spawn } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")

/** The public packages: every packages/* whose package.json is not `private`, by folder name. */
export const publicPackages = (base = root) =>
  readdirSync(join(base, "packages"))
    .filter((dir) => existsSync(join(base, "packages", dir, "package.json")))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(base, "packages", dir, "package.json"), "utf8")) }))
    .filter(({ manifest }) => manifest.private !== true)
    .map(({ dir, manifest }) => ({ dir, name: manifest.name, version: manifest.version }))

const ROOT_FILES = ["package.json", "package-lock.json", "tsconfig.base.json", "tsconfig.json", ".npmrc"]

/** A copy of the working tree's root files and packages/ (no dist/, no node_modules/) beside a link to node_modules. */
export const cloneWorkingTree = (into) => {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "packages"], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
    .split("\0")
    .filter((file) => file !== "" && existsSync(join(root, file)))
  for (const file of [...ROOT_FILES.filter((name) => existsSync(join(root, name))), ...listed]) {
    mkdirSync(dirname(join(into, file)), { recursive: true })
    cpSync(join(root, file), join(into, file))
  }
  linkModules(into)
  fromBuiltTypes(into)
  return into
}

/**
 * The copy's node_modules/: a link to each of the repository's installed packages, except that
 * `@core/*` name the copy's own packages (the repository's workspace links name the repository's,
 * whose folders have no dist/).
 */
const linkModules = (into) => {
  const modules = join(into, "node_modules")
  mkdirSync(join(modules, "@core"), { recursive: true })
  for (const name of readdirSync(join(root, "node_modules"))) {
    if (name !== "@core") symlinkSync(join(root, "node_modules", name), join(modules, name))
  }
  for (const { dir, name } of workspacePackages(into)) symlinkSync(join(into, "packages", dir), join(modules, name), "dir")
}

/**
 * The copy's builds read their `@core/*` dependencies' types from those packages' built dist/, as a
 * user's install does, instead of from their sources through the `source` condition: each
 * declaration build then checks its own package, not the sources of everything below it (the
 * packages are built in dependency order, `packAll`).
 */
const fromBuiltTypes = (into) => {
  const path = join(into, "tsconfig.base.json")
  const config = JSON.parse(readFileSync(path, "utf8"))
  config.compilerOptions.customConditions = []
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`)
}

/** Every packages/* with a package.json (private ones too), with the `@core/*` packages it depends on. */
const workspacePackages = (base) =>
  readdirSync(join(base, "packages"))
    .filter((dir) => existsSync(join(base, "packages", dir, "package.json")))
    .map((dir) => {
      const manifest = JSON.parse(readFileSync(join(base, "packages", dir, "package.json"), "utf8"))
      const all = { ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies, ...manifest.devDependencies }
      return { dir, name: manifest.name, dependsOn: Object.keys(all).filter((dep) => dep.startsWith("@core/")) }
    })

const run = (command, args, options) =>
  new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) =>
      code === 0 ? resolvePromise(stdout) : reject(new Error(`${command} ${args.join(" ")} (in ${options.cwd}) exited ${code}\n${stderr.slice(-4000)}\n${stdout.slice(-2000)}`))
    )
  })

/** `npm pack` in each package folder of `clone` (its prepack builds it), `jobs` at a time. */
export const packAll = async ({ clone, out, jobs = 2, only }) => {
  mkdirSync(out, { recursive: true })
  const wanted = publicPackages(clone).filter(({ dir }) => only === undefined || only.includes(dir))
  const graph = new Map(workspacePackages(clone).map((pkg) => [pkg.name, pkg.dependsOn]))
  // A package is packed once every `@core/*` package it depends on is built (its dist/ holds the
  // types this one's declaration build reads); those outside `wanted` are built first without packing.
  const toBuild = new Set()
  const need = (name, path = []) => {
    if (path.includes(name)) throw new Error(`the packages depend on each other in a cycle: ${[...path, name].join(" → ")}`)
    if (!graph.has(name)) return
    toBuild.add(name)
    for (const dep of graph.get(name)) need(dep, [...path, name])
  }
  for (const { name } of wanted) need(name)
  const byName = new Map(workspacePackages(clone).map((pkg) => [pkg.name, pkg]))
  const versions = new Map(wanted.map((pkg) => [pkg.name, pkg]))
  const built = new Map()
  const tarballs = {}
  const build = (name) => {
    if (!built.has(name)) {
      built.set(name, (async () => {
        await Promise.all(graph.get(name).filter((dep) => toBuild.has(dep)).map((dep) => build(dep)))
        await slots.take()
        try {
          const cwd = join(clone, "packages", byName.get(name).dir)
          const env = { ...process.env, npm_config_update_notifier: "false" }
          const packing = versions.get(name)
          if (packing === undefined) {
            await run("npm", ["run", "build"], { cwd, env })
            return
          }
          await run("npm", ["pack", "--pack-destination", out], { cwd, env })
          const tarball = join(out, `${name.replace(/^@/, "").replace("/", "-")}-${packing.version}.tgz`)
          if (!existsSync(tarball)) throw new Error(`npm pack in packages/${packing.dir} wrote no ${tarball}`)
          tarballs[name] = tarball
        } finally {
          slots.give()
        }
      })())
    }
    return built.get(name)
  }
  const slots = semaphore(jobs)
  await Promise.all([...toBuild].map((name) => build(name)))
  return Object.fromEntries(wanted.map(({ name }) => [name, tarballs[name]]))
}

/** At most `size` holders at once. */
const semaphore = (size) => {
  let free = size
  const waiting = []
  return {
    take: () => (free > 0 ? (free--, Promise.resolve()) : new Promise((resolve) => waiting.push(resolve))),
    give: () => {
      const next = waiting.shift()
      if (next !== undefined) next()
      else free++
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: "string" }, jobs: { type: "string", default: "2" }, only: { type: "string" }, keep: { type: "boolean", default: false } } })
  const out = resolve(values.out ?? mkdtempSync(join(tmpdir(), "core-tarballs-")))
  const clone = cloneWorkingTree(mkdtempSync(join(tmpdir(), "core-clone-")))
  try {
    const tarballs = await packAll({ clone, out, jobs: Number(values.jobs), only: values.only?.split(",") })
    process.stdout.write(`${JSON.stringify({ out, tarballs }, null, 2)}\n`)
  } finally {
    if (!values.keep) rmSync(clone, { recursive: true, force: true })
  }
}
