import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import { cachedFolder } from "@core/kernel/testing"
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { promisify } from "node:util"
import { cliRoot, launcher } from "./run-core.js"

/**
 * The CLI as `npm run build` makes it (tsup's one-file bundle plus the launcher), built ONCE for
 * every test that runs the real binary, and again only when an input changes (decision 0266).
 *
 * The build goes to `node_modules/.cache/core-cli/<hash of its inputs>/` (never `packages/cli/dist`,
 * which the launcher would then run for every other test), through the kernel's `cachedFolder`:
 * one process builds under a lock, the others (vitest's parallel workers, a second run) wait for it
 * and reuse the folder.
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

const build = async (hash: string): Promise<BuiltCli> => {
  const { dir, built } = await cachedFolder({
    root: cacheRoot,
    key: hash,
    marker: join("dist", "core.js"),
    build: async (staging) => {
      const tsup = join(repoRoot, "node_modules", ".bin", "tsup")
      await promisify(execFile)(tsup, ["--out-dir", join(staging, "dist")], { cwd: cliRoot, timeout: 120_000 })
      mkdirSync(join(staging, "bin"))
      copyFileSync(launcher, join(staging, "bin", "core.mjs"))
    }
  })
  return layout(dir, built)
}

let pending: Promise<BuiltCli> | undefined

/** The built CLI for the sources as they are now: built on first use, else the cached build. */
export const builtCli = (): Promise<BuiltCli> => (pending ??= build(inputsHash()))
