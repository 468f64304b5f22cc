import { spawn } from "node:child_process"
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Database } from "@core/kernel"
import { beforeAll, inject } from "vitest"
import { bin, environment, logLines, migratedDataDir, root, useServer } from "../../packages/server/test/ServerProcess.js"
import { eventually } from "./poll.js"

/** The operator key of the shared server (`CORE_STATIC_API_KEY`): one for every file that uses it. */
export const SHARED_STATIC_KEY = "e2e-shared-static-key-0123456789abcdef"

/**
 * The shared server's configuration: the static key, rate limits high enough that the sign-ups
 * of every file a worker runs within a minute are not refused (the limits have files of their own),
 * and webhooks allowed to local receivers with a short retry schedule.
 */
const SHARED_ENV = {
  CORE_STATIC_API_KEY: SHARED_STATIC_KEY,
  CORE_RATE_LIMIT_PER_MINUTE: "1000000",
  CORE_RATE_LIMIT_AUTH_PER_MINUTE: "1000000",
  // Webhooks to the files' own receivers on 127.0.0.1, retried at once (tests/webhooks-gateway.test.ts).
  CORE_WEBHOOKS_ALLOW_HTTP: "1",
  CORE_WEBHOOKS_ALLOW_PRIVATE: "1",
  CORE_WEBHOOKS_RETRY_SCHEDULE: "0s,200ms,200ms,200ms,200ms"
}

const watchdog = fileURLToPath(new URL("./serverWatchdog.mjs", import.meta.url))

/** A server a file uses: its base URL, once `beforeAll` ran. */
export interface UsedServer {
  readonly base: string
}

interface Record {
  readonly base: string
  /** The process group of the watchdog and its server, which the global setup ends. */
  readonly pids: ReadonlyArray<number>
}

const healthy = async (base: string): Promise<boolean> => (await fetch(`${base}/health`).catch(() => undefined))?.ok === true

/** This worker's shared server: the one a previous file started if it still answers, else a new one. */
const sharedServer = async (dir: string, timeoutMs: number): Promise<string> => {
  const slot = process.env.VITEST_POOL_ID ?? "1"
  const recordFile = join(dir, `server-${slot}.json`)
  if (existsSync(recordFile)) {
    const { base } = JSON.parse(readFileSync(recordFile, "utf8")) as Record
    if (await healthy(base)) return base
  }
  const work = join(dir, `server-${slot}-${process.pid}`)
  mkdirSync(work, { recursive: true })
  const dataDir = await migratedDataDir(join(work, "data"))
  const stdout = join(work, "stdout.log")
  const stderr = join(work, "stderr.log")
  const out = openSync(stdout, "w")
  const err = openSync(stderr, "w")
  // Its own process group, outliving this file's worker; the watchdog ends it with vitest (`process.ppid`).
  const child = spawn(process.execPath, [watchdog, String(process.ppid), bin, "start"], {
    cwd: root,
    env: environment({ PORT: "0", CORE_DATA_DIR: dataDir, ...SHARED_ENV }),
    stdio: ["ignore", out, err],
    detached: true
  })
  closeSync(out)
  closeSync(err)
  let exited: string | undefined
  child.on("exit", (code, signal) => (exited = `it exited (${String(code ?? signal)})`))
  child.unref()
  writeFileSync(recordFile, JSON.stringify({ base: "", pids: [-child.pid!] } satisfies Record))
  const printed = () => `\nstdout:\n${readFileSync(stdout, "utf8")}\nstderr:\n${readFileSync(stderr, "utf8")}`
  const base = await eventually(async () => {
    const listening = logLines(readFileSync(stdout, "utf8")).find((line) => line.message === "listening")
    if (listening === undefined) return undefined
    const at = `http://127.0.0.1:${String(listening.port)}`
    return (await healthy(at)) ? at : undefined
  }, (found) => found !== undefined, {
    message: () => `the shared core-server to answer /health${printed()}`,
    timeout: timeoutMs,
    interval: 50,
    abandon: () => exited
  })
  writeFileSync(recordFile, JSON.stringify({ base: base!, pids: [-child.pid!] } satisfies Record))
  return base!
}

/**
 * The all-in-one server for a file that only needs one running (its own tenants, platforms and
 * slugs keep its data apart, tests/support/tenants.ts): on PGlite, one `core-server start` per
 * vitest worker, started by the first file that asks and reused by the next ones, stopped at the
 * end of the run (the e2e project's global setup, tests/support/sharedServerSetup.ts), instead of
 * one process per file. With `driver: "pg"`, or outside that project, the file's own server as
 * `useServer` starts it, with the same configuration. Operator calls use {@link SHARED_STATIC_KEY}.
 */
export const useSharedServer = (timeoutMs = 180_000, options: { readonly driver?: Database.Driver } = {}): UsedServer => {
  const dir = inject("sharedServers") as string | undefined
  if (options.driver === "pg" || dir === undefined) return useServer(SHARED_ENV, timeoutMs, options)
  const used = { base: "" }
  beforeAll(async () => {
    used.base = await sharedServer(dir, timeoutMs)
  }, timeoutMs)
  return used
}
