/**
 * The worker thread that runs embedded PGlite for `PgliteClient.make({ thread: true })`
 * (docs/decisions/0210): PostgreSQL's WebAssembly — opening the cluster, every statement — runs
 * here, never on the server's event loop. It answers the requests of `pgliteThread.ts` by id, in
 * the order PGlite finishes them, and forwards every `NOTIFY` it receives.
 *
 * @internal
 */
import { PGlite } from "@electric-sql/pglite"
import { parentPort, workerData } from "node:worker_threads"
import { elementParsers } from "./pgTypes.js"
import type { FromWorker, Request, WorkerData } from "./pgliteThread.js"

const port = parentPort!
const data = workerData as WorkerData

const post = (message: FromWorker, transfer: ReadonlyArray<ArrayBuffer> = []) =>
  port.postMessage(message, transfer as Array<ArrayBuffer>)

/** An error as plain data: structured clone would keep only its name, message and stack. */
const plain = (error: unknown): Record<string, unknown> => {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) }
  const fields: Record<string, unknown> = { name: error.name, message: error.message, stack: error.stack }
  for (const [key, value] of Object.entries(error)) {
    if (value === undefined || ["string", "number", "boolean"].includes(typeof value)) fields[key] = value
  }
  return fields
}

const handle = async (db: PGlite, request: Request): Promise<void> => {
  switch (request.op) {
    case "exec":
      return post({ id: request.id, ok: true, value: await db.exec(request.sql, { rowMode: request.rowMode }) })
    case "query":
      return post({
        id: request.id,
        ok: true,
        value: await db.query(request.sql, request.params as Array<unknown>, { rowMode: request.rowMode })
      })
    case "dump": {
      const tarball = await (await db.dumpDataDir(request.compression)).arrayBuffer()
      return post({ id: request.id, ok: true, value: tarball }, [tarball])
    }
    case "close":
      await db.close()
      return post({ id: request.id, ok: true, value: undefined })
  }
}

const main = async () => {
  let db: PGlite
  try {
    db = await PGlite.create({
      dataDir: data.dataDir,
      loadDataDir: data.loadDataDir === undefined ? undefined : new Blob([data.loadDataDir]),
      parsers: elementParsers
    })
  } catch (error) {
    return post({ id: 0, ok: false, error: plain(error) })
  }
  db.onNotification((channel, payload) => post({ notification: { channel, payload } }))
  port.on("message", (request: Request) => {
    handle(db, request).catch((error) => post({ id: request.id, ok: false, error: plain(error) }))
  })
  post({ id: 0, ok: true, value: undefined })
}

void main()
