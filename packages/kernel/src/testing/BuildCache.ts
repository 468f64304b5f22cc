import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"

/**
 * A folder built once for every test process that wants it (vitest's parallel workers, the next
 * run), and again only when its key changes: the CLI's bundle, a migrated data directory.
 *
 * The folder is `<root>/<key>/`. The first process to want it takes a lock (an atomic `mkdir` of
 * `<key>.lock`), builds into a private staging folder and renames it into place; every other
 * process waits for the rename and reuses the folder. A lock left by a killed build is taken over
 * once it is older than `staleLockMs`. Folders of other keys older than a day are removed.
 */
export interface BuildCacheOptions {
  /** The folder holding one subfolder per key. */
  readonly root: string
  /** What the folder is built from (a hash of its inputs). */
  readonly key: string
  /** A path inside the finished folder whose presence says it is complete. */
  readonly marker: string
  /** Fill `staging` (an empty folder); it becomes `<root>/<key>` when this resolves. */
  readonly build: (staging: string) => Promise<void>
  /** @default 150_000 */
  readonly staleLockMs?: number
  /** @default 180_000 */
  readonly waitMs?: number
}

const KEEP_MS = 24 * 3600_000

const prune = (root: string, keep: string): void => {
  for (const name of readdirSync(root)) {
    if (name === keep || name.endsWith(".lock") || name.includes(".tmp-")) continue
    const path = join(root, name)
    try {
      if (Date.now() - statSync(path).mtimeMs > KEEP_MS) rmSync(path, { recursive: true, force: true })
    } catch {
      // Removed meanwhile by another run.
    }
  }
}

/**
 * The finished folder for `options.key`: built by this process if no other has built it.
 * Answers `{ dir, built }` (`built`: whether this process built it).
 */
export const cachedFolder = async (options: BuildCacheOptions): Promise<{ readonly dir: string; readonly built: boolean }> => {
  const { root, key } = options
  const dir = join(root, key)
  const done = join(dir, options.marker)
  const lock = join(root, `${key}.lock`)
  const deadline = Date.now() + (options.waitMs ?? 180_000)
  mkdirSync(root, { recursive: true })
  for (;;) {
    if (existsSync(done)) return { dir, built: false }
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
      if (age > (options.staleLockMs ?? 150_000)) rmSync(lock, { recursive: true, force: true })
      else if (Date.now() > deadline) throw new Error(`Timed out waiting for another process's build (${lock})`)
      else await sleep(200)
      continue
    }
    try {
      if (existsSync(done)) return { dir, built: false }
      const staging = join(root, `${key}.tmp-${process.pid}-${Date.now()}`)
      try {
        mkdirSync(staging, { recursive: true })
        await options.build(staging)
        rmSync(dir, { recursive: true, force: true }) // a half-written folder of an older layout, never a finished one
        renameSync(staging, dir)
      } finally {
        rmSync(staging, { recursive: true, force: true })
      }
      prune(root, key)
      return { dir, built: true }
    } finally {
      rmSync(lock, { recursive: true, force: true })
    }
  }
}
