import { type FSWatcher, watch } from "node:fs"
import { Effect, Runtime } from "effect"
import { VaultConfig } from "./Config.js"
import { Loader } from "./Loader.js"
import type { Snapshot } from "./Snapshot.js"

/** How long a burst of file events settles before the vault reloads (well inside the 1 s promise). */
const SETTLE_MS = 75
/** How often the vault looks at its files where recursive watching is not available. */
const POLL_MS = 500

/**
 * The vault being served: the snapshot of `CORE_VAULT_DIR`, reloaded within a second whenever a
 * Markdown file under it is added, edited or removed (recursive `fs.watch`; polling where the
 * platform has none). Files that fail to parse are logged as warnings naming the file.
 */
export class Vault extends Effect.Service<Vault>()("@core/vault/Vault", {
  scoped: Effect.gen(function*() {
    const { dir } = yield* VaultConfig
    const runtime = yield* Effect.runtime<never>()
    const loader = new Loader(dir)
    const warn = (warnings: ReadonlyArray<string>) =>
      Runtime.runFork(runtime)(Effect.forEach(warnings, (warning) => Effect.logWarning(`vault: ${warning}`), { discard: true }))

    let current: Snapshot = yield* Effect.promise(() => loader.load())
    warn(current.warnings)
    let version = 0
    let reloading: Promise<Snapshot> | undefined
    let again = false

    /** Reload now; a change during a reload runs one more afterwards. */
    const reload = (): Promise<Snapshot> => {
      if (reloading !== undefined) {
        again = true
        return reloading
      }
      reloading = (async () => {
        do {
          again = false
          const next = await loader.load()
          const before = new Set(current.warnings)
          warn(next.warnings.filter((warning) => !before.has(warning)))
          current = next
          version++
        } while (again)
        reloading = undefined
        return current
      })()
      return reloading
    }

    let timer: ReturnType<typeof setTimeout> | undefined
    const schedule = () => {
      if (timer !== undefined) clearTimeout(timer)
      timer = setTimeout(() => {
        timer = undefined
        void reload()
      }, SETTLE_MS)
    }

    let watcher: FSWatcher | undefined
    let poller: ReturnType<typeof setInterval> | undefined
    try {
      watcher = watch(dir, { recursive: true, persistent: false }, schedule)
      watcher.on("error", () => {
        watcher?.close()
        watcher = undefined
        if (poller === undefined) {
          poller = setInterval(() => void reload(), POLL_MS)
          poller.unref()
        }
      })
    } catch {
      // No folder yet, or no recursive watching here: look every half second instead.
      poller = setInterval(() => void reload(), POLL_MS)
      poller.unref()
    }
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        watcher?.close()
        if (poller !== undefined) clearInterval(poller)
        if (timer !== undefined) clearTimeout(timer)
      })
    )

    return {
      /** The folder served. */
      dir,
      /** The snapshot of this moment. */
      snapshot: Effect.sync(() => current),
      /** How many reloads have happened (tests wait on it). */
      version: Effect.sync(() => version),
      /** Reload now (the watcher does it on its own). */
      reload: Effect.promise(() => reload()).pipe(Effect.withSpan("Vault.reload"))
    } as const
  })
}) {}
