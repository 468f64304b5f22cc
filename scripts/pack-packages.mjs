#!/usr/bin/env node
// Packs every public package (packages/*, not "private") the way a release does: built as its
// `prepack` script builds it (decision 0530), the declarations of all of them in one tsc program
// (decision 0636), then `npm pack` in the package's folder. Runs in a copy of the working
// tree (tracked and untracked files, as `git ls-files` sees them, beside the repository's
// node_modules) so that the dist/ folders the builds write never appear in the repository, where the
// launchers of `core` and `core-server` would switch to them (decisions 0043, 0052).
//
//   node scripts/pack-packages.mjs --out <dir> [--jobs 2] [--only sdk,contracts] [--no-check]
//
// --no-check: the declarations emitted without type-checking the sources again (tsc's noCheck,
// the same files), for a caller that type-checks them anyway: tests/release-packed-install.test.ts
// under `npm test`, whose `npm run typecheck` checks every packages/*/src with the same settings.
//
// Prints one JSON object on stdout: { clone, tarballs: { "@core/sdk": "<out>/core-sdk-0.1.0.tgz", … } }.
import { execFileSync, spawn } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative, resolve, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")

/** The public packages: every packages/* whose package.json is not `private`, by folder name. */
export const publicPackages = (base = root) =>
  readdirSync(join(base, "packages"))
    .filter((dir) => existsSync(join(base, "packages", dir, "package.json")))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(base, "packages", dir, "package.json"), "utf8")) }))
    .filter(({ manifest }) => manifest.private !== true)
    .map(({ dir, manifest }) => ({ dir, name: manifest.name, version: manifest.version, build: manifest.scripts?.build }))

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
  symlinkSync(join(root, "node_modules"), join(into, "node_modules"), "dir")
  return into
}

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

/** `tasks` (functions returning promises), `jobs` at a time. */
const pool = async (tasks, jobs) => {
  const pending = [...tasks]
  const worker = async () => {
    for (let next = pending.shift(); next !== undefined; next = pending.shift()) await next()
  }
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker))
}

/** The build script of a package whose declarations come from the one tsc program (decision 0636). */
const STANDARD_BUILD = "tsup && tsc -p tsconfig.build.json"

/** The SDK's build: its JavaScript, then its declarations with the contracts' inside (decision 0601). */
const SDK_BUILD = "tsup && node scripts/build-types.mjs"

/**
 * Builds the packages of `clone` as their `prepack` would, the declarations in one program: each
 * package's JavaScript with tsup; the declarations of every package whose build is
 * `tsup && tsc -p tsconfig.build.json` by one `tsc` over all of their sources (each module is
 * checked once, not once per package that imports it), copied into each one's dist/; the SDK's
 * (which carry the contracts' declarations) by its own script, given the contracts' from that
 * program instead of compiling them again; any other build as its own script says. `check: false`
 * emits the declarations without type-checking the sources (`--no-check`).
 */
export const buildAll = async ({ clone, packages, jobs = 2, check = true }) => {
  const bin = (name) => join(clone, "node_modules", ".bin", name)
  const env = { ...process.env, npm_config_update_notifier: "false" }
  const standard = packages.filter(({ build }) => build === STANDARD_BUILD)
  const declarations = join(clone, ".declarations")
  const config = join(clone, "tsconfig.declarations.json")
  // One program: the packages' own tsconfig.build.json settings, every root under packages/.
  writeFileSync(config, `${JSON.stringify({
    extends: "./tsconfig.base.json",
    compilerOptions: { noEmit: false, emitDeclarationOnly: true, declaration: true, declarationMap: true, sourceMap: false, rootDir: "packages", outDir: declarations, ...(check ? {} : { noCheck: true }) },
    include: standard.map(({ dir }) => `packages/${dir}/src`),
    exclude: ["packages/*/src/**/*.test.ts"]
  }, null, 2)}\n`)
  const typed = standard.length === 0 ? Promise.resolve() : run(process.execPath, [bin("tsc"), "-p", config], { cwd: clone, env })
  const contracts = standard.some(({ dir }) => dir === "contracts")
  /** The SDK's declarations, each started once its JavaScript and the one program are done. */
  const after = []
  // The JavaScript and the other builds share the remaining job slots while tsc runs.
  const scripts = pool(packages.map(({ dir, build }) => () => {
    const cwd = join(clone, "packages", dir)
    if (build === STANDARD_BUILD || build === "tsup") return run(bin("tsup"), [], { cwd, env })
    if (build === SDK_BUILD && contracts) {
      const javascript = run(bin("tsup"), [], { cwd, env })
      const types = Promise.all([javascript, typed]).then(() => run(process.execPath, ["scripts/build-types.mjs"], {
        cwd,
        env: { ...env, CORE_SDK_CONTRACTS_DECLARATIONS: join(declarations, "contracts", "src"), ...(check ? {} : { CORE_SDK_TYPES_NO_CHECK: "1" }) }
      }))
      // Awaited below; handled here so that an earlier failure elsewhere leaves no unhandled rejection.
      types.catch(() => {})
      after.push(types)
      return javascript
    }
    return build === undefined ? Promise.resolve() : run("npm", ["run", "build"], { cwd, env })
  }), Math.max(1, jobs - (standard.length === 0 ? 0 : 1)))
  await Promise.all([typed, scripts])
  await Promise.all(after)
  for (const { dir } of standard) {
    const from = join(declarations, dir, "src")
    const into = join(clone, "packages", dir, "dist")
    if (!existsSync(from)) throw new Error(`tsc wrote no declarations for packages/${dir}`)
    cpSync(from, into, { recursive: true })
    // The maps' sources, relative to where the declarations now are (dist/ beside src/).
    for (const file of readdirSync(from, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".d.ts.map"))) {
      const map = JSON.parse(readFileSync(join(from, file), "utf8"))
      map.sources = map.sources.map((source) => relative(dirname(join(into, file)), resolve(dirname(join(from, file)), source)).split(sep).join("/"))
      writeFileSync(join(into, file), JSON.stringify(map))
    }
  }
}

/**
 * Builds the public packages of `clone` (`buildAll`), then `npm pack --ignore-scripts` of each
 * folder (their `prepack` is that build), in `jobs` npm processes.
 */
export const packAll = async ({ clone, out, jobs = 2, only, check = true }) => {
  mkdirSync(out, { recursive: true })
  const packages = publicPackages(clone).filter(({ dir }) => only === undefined || only.includes(dir))
  await buildAll({ clone, packages, jobs, check })
  // `npm pack <folder>...`: each folder packed as `npm pack` in it packs it, several to one npm
  // process (`jobs` processes in all) instead of one process, and its start-up, per package.
  const shares = Array.from({ length: Math.max(1, Math.min(jobs, packages.length)) }, (_, index) => packages.filter((_, at) => at % Math.max(1, jobs) === index))
  await Promise.all(shares.map((share) =>
    run("npm", ["pack", "--ignore-scripts", "--pack-destination", out, ...share.map(({ dir }) => `./packages/${dir}`)], { cwd: clone, env: { ...process.env, npm_config_update_notifier: "false" } })))
  const tarballs = {}
  for (const next of packages) {
    const tarball = join(out, `${next.name.replace(/^@/, "").replace("/", "-")}-${next.version}.tgz`)
    if (!existsSync(tarball)) throw new Error(`npm pack of packages/${next.dir} wrote no ${tarball}`)
    tarballs[next.name] = tarball
  }
  return tarballs
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: "string" }, jobs: { type: "string", default: "2" }, only: { type: "string" }, keep: { type: "boolean", default: false }, "no-check": { type: "boolean", default: false } } })
  const out = resolve(values.out ?? mkdtempSync(join(tmpdir(), "core-tarballs-")))
  const clone = cloneWorkingTree(mkdtempSync(join(tmpdir(), "core-clone-")))
  try {
    const tarballs = await packAll({ clone, out, jobs: Number(values.jobs), only: values.only?.split(","), check: !values["no-check"] })
    process.stdout.write(`${JSON.stringify({ out, tarballs }, null, 2)}\n`)
  } finally {
    if (!values.keep) rmSync(clone, { recursive: true, force: true })
  }
}
