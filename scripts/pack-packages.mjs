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
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs"
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

/** `npm pack` in each package folder of `clone` (its prepack builds it), `jobs` at a time. */
export const packAll = async ({ clone, out, jobs = 2, only }) => {
  mkdirSync(out, { recursive: true })
  const pending = publicPackages(clone).filter(({ dir }) => only === undefined || only.includes(dir))
  const tarballs = {}
  const worker = async () => {
    for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
      const pack = () => run("npm", ["pack", "--pack-destination", out], { cwd: join(clone, "packages", next.dir), env: { ...process.env, npm_config_update_notifier: "false" } })
      await pack().catch((error) => {
        // Seen once in CI under load (cause not found): a prepack's tsup declaration worker did not
        // resolve typescript, which is installed. Retried once, and said; any other failure stands.
        if (!String(error.message).includes('You need to install "typescript"')) throw error
        process.stderr.write(`npm pack in packages/${next.dir}: tsup's declaration build did not find typescript; packing it again\n`)
        return pack()
      })
      const tarball = join(out, `${next.name.replace(/^@/, "").replace("/", "-")}-${next.version}.tgz`)
      if (!existsSync(tarball)) throw new Error(`npm pack in packages/${next.dir} wrote no ${tarball}`)
      tarballs[next.name] = tarball
    }
  }
  await Promise.all(Array.from({ length: jobs }, worker))
  return tarballs
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
