import { Database } from "@core/kernel"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs/promises"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"

/** Runs in the worker: create the cluster in `dir` (PostgreSQL's initdb, in WebAssembly), then close it. */
const WORKER = `
const { workerData, parentPort } = require("node:worker_threads")
import(workerData.pglite)
  .then(async ({ PGlite }) => {
    const db = await PGlite.create({ dataDir: workerData.dir })
    await db.close()
    parentPort.postMessage("done")
  })
  .catch((error) => parentPort.postMessage(String(error && error.stack || error)))
`

const initIn = (dir: string): Promise<void> =>
  new Promise((resolve, reject) => {
    const pglite = pathToFileURL(createRequire(import.meta.url).resolve("@electric-sql/pglite")).href
    const worker = new Worker(WORKER, { eval: true, workerData: { pglite, dir } })
    worker.once("message", (message) => {
      void worker.terminate()
      if (message === "done") resolve()
      else reject(new Error(String(message)))
    })
    worker.once("error", reject)
  })

/**
 * A fresh data directory's database is created in a worker thread (docs/decisions/0202): PGlite's
 * initdb runs about 3 s of WebAssembly that would otherwise stall the event loop (and `/health`)
 * on first boot. The cluster is made beside `pgdata` and renamed into place, so two processes
 * starting together never share a half-made one. Does nothing when `pgdata` exists; a failure
 * here is left to the real open, which reports it.
 */
export const initDataDir = (dataDir: string): Effect.Effect<void> =>
  Effect.promise(async () => {
    const pgdata = Database.pgDataDir(dataDir)
    if (await Fs.stat(pgdata).then(() => true, () => false)) return
    const staging = `${pgdata}.init-${process.pid}-${randomBytes(4).toString("hex")}`
    try {
      await Fs.mkdir(Path.dirname(pgdata), { recursive: true })
      await initIn(staging)
      await Fs.rename(staging, pgdata)
    } catch {
      // The open that follows creates or reports it.
    } finally {
      await Fs.rm(staging, { recursive: true, force: true })
    }
  }).pipe(Effect.withSpan("Storage.initDataDir"))
