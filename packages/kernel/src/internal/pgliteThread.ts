import type { PGlite, Results } from "@electric-sql/pglite"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"

/** How rows come back: objects keyed by column, or arrays. */
export type RowMode = "object" | "array"

/**
 * What `PgliteClient` needs of PGlite, whether it runs on this thread or in a worker thread.
 *
 * @internal
 */
export interface PgliteSession {
  readonly exec: (sql: string, rowMode: RowMode) => Promise<Array<Results<unknown>>>
  readonly query: (sql: string, params: ReadonlyArray<unknown>, rowMode: RowMode) => Promise<Results<unknown>>
  readonly dumpDataDir: (compression: "gzip" | "none") => Promise<Blob>
  /** Calls `listener` for every notification; answers the function that stops it. */
  readonly onNotification: (listener: (channel: string, payload: string) => void) => () => void
  readonly close: () => Promise<void>
}

/** @internal */
export const sessionOf = (db: PGlite): PgliteSession => ({
  exec: (sql, rowMode) => db.exec(sql, { rowMode }),
  query: (sql, params, rowMode) => db.query(sql, params as Array<unknown>, { rowMode }),
  dumpDataDir: (compression) => db.dumpDataDir(compression),
  onNotification: (listener) => db.onNotification(listener),
  close: () => db.close()
})

/** @internal */
export type Request =
  | { readonly id: number; readonly op: "exec"; readonly sql: string; readonly rowMode: RowMode }
  | {
    readonly id: number
    readonly op: "query"
    readonly sql: string
    readonly params: ReadonlyArray<unknown>
    readonly rowMode: RowMode
  }
  | { readonly id: number; readonly op: "dump"; readonly compression: "gzip" | "none" }
  | { readonly id: number; readonly op: "close" }

/** @internal Request 0 is the open. */
export type FromWorker =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: Record<string, unknown> }
  | { readonly notification: { readonly channel: string; readonly payload: string } }

/** @internal */
export interface WorkerData {
  readonly dataDir: string
  readonly loadDataDir: ArrayBuffer | undefined
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

/** An error of the worker rebuilt with every field it had (`code`, `detail`, `constraint`, …). */
const rebuild = (fields: Record<string, unknown>): Error =>
  Object.assign(new Error(String(fields.message ?? "PGlite failed")), fields)

/**
 * Starts the worker at `url`: the built `pgliteWorker.js` as it is, or — running from the
 * TypeScript source (vitest, the launcher's source bundle) — `pgliteWorker.ts` through tsx's
 * `tsImport`, since Node 20 cannot load TypeScript in a worker by itself.
 */
const spawn = (url: URL, workerData: WorkerData, transfer: ReadonlyArray<ArrayBuffer>): Worker => {
  const options = { workerData, transferList: transfer as Array<ArrayBuffer>, execArgv: [] }
  if (!url.pathname.endsWith(".ts")) return new Worker(url, options)
  const require = createRequire(url)
  const manifest = require.resolve("tsx/package.json")
  const exports = JSON.parse(readFileSync(manifest, "utf8")).exports["./esm/api"].import.default as string
  const api = pathToFileURL(Path.join(Path.dirname(manifest), exports)).href
  const file = pathToFileURL(fileURLToPath(url)).href
  return new Worker(
    `import(${JSON.stringify(api)}).then(({ tsImport }) => tsImport(${JSON.stringify(file)}, ${JSON.stringify(file)}))`,
    { ...options, eval: true }
  )
}

/**
 * Opens PGlite on `dataDir` in a worker thread (the script at `url`) and answers a session that
 * talks to it by messages; rejects with PGlite's own error when the open fails. If the worker dies,
 * every pending and later request rejects (nothing waits forever).
 *
 * @internal
 */
export const open = (
  url: URL,
  options: { readonly dataDir: string; readonly loadDataDir?: Blob | undefined }
): Promise<PgliteSession> =>
  (async () => {
    const load = options.loadDataDir === undefined ? undefined : await options.loadDataDir.arrayBuffer()
    const worker = spawn(url, { dataDir: options.dataDir, loadDataDir: load }, load === undefined ? [] : [load])
    const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
    const listeners = new Set<(channel: string, payload: string) => void>()
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()))
    let next = 1
    let dead: Error | undefined

    const die = (error: Error) => {
      dead ??= error
      for (const [id, entry] of pending) {
        pending.delete(id)
        entry.reject(dead)
      }
    }
    const opened = new Promise<unknown>((resolve, reject) => pending.set(0, { resolve, reject }))
    worker.on("message", (message: FromWorker) => {
      if ("notification" in message) {
        for (const listener of listeners) listener(message.notification.channel, message.notification.payload)
        return
      }
      const entry = pending.get(message.id)
      if (entry === undefined) return
      pending.delete(message.id)
      if (message.ok) entry.resolve(message.value)
      else entry.reject(rebuild(message.error))
    })
    worker.on("error", (error) => die(new Error(`The PGlite worker thread failed: ${error.message}`, { cause: error })))
    worker.on("exit", (code) => die(new Error(`The PGlite worker thread exited (code ${code})`)))

    const call = <A>(request: DistributiveOmit<Request, "id">): Promise<A> =>
      new Promise<A>((resolve, reject) => {
        if (dead !== undefined) return reject(dead)
        const id = next++
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
        worker.postMessage({ ...request, id })
      })

    try {
      await opened
    } catch (error) {
      await worker.terminate()
      throw error
    }

    let closing: Promise<void> | undefined
    return {
      exec: (sql, rowMode) => call({ op: "exec", sql, rowMode }),
      query: (sql, params, rowMode) => call({ op: "query", sql, params, rowMode }),
      dumpDataDir: async (compression) => new Blob([await call<ArrayBuffer>({ op: "dump", compression })]),
      onNotification: (listener) => {
        listeners.add(listener)
        return () => void listeners.delete(listener)
      },
      // PGlite closes (it writes its files), then the thread ends; one that hangs is ended after 10 s.
      close: () =>
        closing ??= (async () => {
          if (dead === undefined) {
            await Promise.race([call({ op: "close" }), new Promise((resolve) => setTimeout(resolve, 10_000).unref())])
              .catch(() => undefined)
          }
          await worker.terminate()
          await exited
        })()
    }
  })()
