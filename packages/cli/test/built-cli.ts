import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { promisify } from "node:util"
import { cliRoot, launcher } from "./run-core.js"

/**
 * The CLI as `npm run build` makes it (tsup's one-file bundle plus the launcher), built ONCE for
 * every test that runs the real binary, and again only when an input changes (decision 0266).
 *
 * The build goes to `node_modules/.cache/core-cli/<hash of its inputs>/` (never `packages/cli/dist`,
 * which the launcher would then run for every other test): the first process to want it takes a
 * lock (an atomic `mkdir`), builds into a private folder and renames it into place; any other
 * process (vitest's parallel workers, a second run) waits for the rename and reuses the folder.
 * A lock left by a killed build is taken over after {@link STALE_LOCK_MS}.
 */
export interface BuiltCli {
  /** The folder: `dist/core.js` and `bin/core.mjs`, as in the published package. */
  readonly dir: string
  /** `dist/core.js`, the bundle. */
  readonly bundle: string
  /** `bin/core.mjs`, the launcher next to the bundle (it runs the bundle). */
  readonly launcher: string
  /** Whether this process built it (false: it was cached, or another process built it). */
  readonly built: boolean
}

const repoRoot = join(cliRoot, "..", "..")
/** `CORE_CLI_BUILD_CACHE` moves the cache (the test of the lock uses an empty one). */
const cacheRoot = process.env.CORE_CLI_BUILD_CACHE ?? join(repoRoot, "node_modules", ".cache", "core-cli")
/** A build takes seconds; a lock older than this was left by a process that died. */
const STALE_LOCK_MS = 150_000
const WAIT_MS = 180_000
/** Builds of older inputs are removed after a day (a run still using one would have finished). */
const KEEP_MS = 24 * 3600_000

/** Every file the bundle is made from: the CLI, the SDK and the contracts, the build config, the lock file. */
const inputs = (): Array<string> => {
  const files: Array<string> = []
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.isFile()) files.push(path)
    }
  }
  for (const dir of ["packages/cli/src", "packages/cli/bin", "packages/sdk/src", "packages/contracts/src"]) walk(join(repoRoot, dir))
  for (const file of ["packages/cli/package.json", "packages/cli/tsup.config.ts", "packages/cli/tsconfig.json", "packages/sdk/package.json",
    "packages/contracts/package.json", "tsconfig.base.json", "package-lock.json"]) {
    files.push(join(repoRoot, file))
  }
  return files.sort()
}

/** The hash of the inputs' paths and contents: the build's cache key. */
export const inputsHash = (): string => {
  const hash = createHash("sha256")
  for (const file of inputs()) {
    if (!existsSync(file)) continue
    hash.update(relative(repoRoot, file)).update("\0").update(readFileSync(file)).update("\0")
  }
  return hash.digest("hex").slice(0, 16)
}

const layout = (dir: string, built = false): BuiltCli => ({ dir, bundle: join(dir, "dist", "core.js"), launcher: join(dir, "bin", "core.mjs"), built })

const prune = (keep: string): void => {
  for (const name of readdirSync(cacheRoot)) {
    const path = join(cacheRoot, name)
    if (name === keep || name.endsWith(".lock")) continue
    try {
      if (Date.now() - statSync(path).mtimeMs > KEEP_MS) rmSync(path, { recursive: true, force: true })
    } catch {
      // Removed meanwhile by another run.
    }
  }
}

const build = async (hash: string): Promise<BuiltCli> => {
  const final = layout(join(cacheRoot, hash))
  const lock = join(cacheRoot, `${hash}.lock`)
  const deadline = Date.now() + WAIT_MS
  mkdirSync(cacheRoot, { recursive: true })
  for (;;) {
    if (existsSync(final.bundle)) return final
    try {
      mkdirSync(lock)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      let age = 0
      try {
        age = Date.now() - statSync(lock).mtimeMs
      } catch {
        continue // released meanwhile
      }
      if (age > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true })
      else if (Date.now() > deadline) throw new Error(`Timed out waiting for another process's CLI build (${lock})`)
      else await sleep(200)
      continue
    }
    try {
      if (existsSync(final.bundle)) return final
      const staging = join(cacheRoot, `${hash}.tmp-${process.pid}-${Date.now()}`)
      try {
        const tsup = join(repoRoot, "node_modules", ".bin", "tsup")
        await promisify(execFile)(tsup, ["--out-dir", join(staging, "dist")], { cwd: cliRoot, timeout: 120_000 })
        mkdirSync(join(staging, "bin"))
        copyFileSync(launcher, join(staging, "bin", "core.mjs"))
        rmSync(final.dir, { recursive: true, force: true }) // a half-written folder of an older layout, never a finished one
        renameSync(staging, final.dir)
      } finally {
        rmSync(staging, { recursive: true, force: true })
      }
      prune(hash)
      return { ...final, built: true }
    } finally {
      rmSync(lock, { recursive: true, force: true })
    }
  }
}

let pending: Promise<BuiltCli> | undefined

/** The built CLI for the sources as they are now: built on first use, else the cached build. */
export const builtCli = (): Promise<BuiltCli> => (pending ??= build(inputsHash()))
