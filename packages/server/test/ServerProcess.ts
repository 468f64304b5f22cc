import { type ChildProcess, spawn } from "node:child_process"
import { createHash } from "node:crypto"
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import type { Database } from "@core/kernel"
import { cachedFolder, TestDatabase } from "@core/kernel/testing"
import { eventuallyDefined } from "@core/kernel/testing/poll"
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll } from "vitest"

/** The launcher in the repository: `packages/server/bin/core-server.mjs`. */
export const bin = fileURLToPath(new URL("../bin/core-server.mjs", import.meta.url))

/** The repository root, where `npm start` runs. */
export const root = fileURLToPath(new URL("../../..", import.meta.url))

const INHERITED = ["PATH", "HOME", "TMPDIR", "SystemRoot"]

/** A clean environment: nothing of the caller's Core configuration, plus `env`. */
export const environment = (env: Record<string, string>): Record<string, string> => {
  const base: Record<string, string> = { NODE_ENV: "development" }
  for (const name of INHERITED) {
    const value = process.env[name]
    if (value !== undefined) base[name] = value
  }
  return { ...base, ...env }
}

/** A finished run of `core-server`. */
export interface Finished {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** A running `core-server` process and what it printed so far. */
export interface Running {
  readonly child: ChildProcess
  readonly output: { stdout: string; stderr: string }
  readonly exited: Promise<Finished>
}

/** Where a process runs: `cwd` (default the repository root, where `npm start` runs). */
export interface LaunchOptions {
  readonly cwd?: string
}

/** Start `node bin/core-server.mjs ...args` with a clean environment plus `env`. */
export const launch = (args: ReadonlyArray<string>, env: Record<string, string>, options: LaunchOptions = {}): Running => {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? root,
    env: environment(env),
    stdio: ["ignore", "pipe", "pipe"]
  })
  const output = { stdout: "", stderr: "" }
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output.stdout += chunk))
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output.stderr += chunk))
  const exited = new Promise<Finished>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, ...output }))
  )
  return { child, output, exited }
}

/** Run `core-server ...args` to its end. */
export const run = (args: ReadonlyArray<string>, env: Record<string, string>, options: LaunchOptions = {}): Promise<Finished> =>
  launch(args, env, options).exited

/** The JSON log lines a process wrote on stdout. */
export const logLines = (stdout: string): Array<Record<string, unknown>> =>
  stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, unknown>)

/**
 * Wait until the server logs `listening`, then until `/health` answers; answers its base URL.
 * Fails with everything the process printed if it exits first or takes longer than `timeoutMs`.
 */
export const ready = async (running: Running, timeoutMs = 90_000): Promise<string> => {
  let exited = false
  void running.exited.then(() => (exited = true))
  const healthy = async (): Promise<string | undefined> => {
    const listening = logLines(running.output.stdout).find((line) => line.message === "listening")
    if (listening === undefined) return undefined
    const base = `http://127.0.0.1:${String(listening.port)}`
    const health = await fetch(`${base}/health`).catch(() => undefined)
    return health?.ok === true ? base : undefined
  }
  try {
    return await eventuallyDefined(healthy, {
      message: "core-server to become healthy",
      timeout: timeoutMs,
      abandon: () => (exited ? "it exited" : undefined)
    })
  } catch (error) {
    running.child.kill("SIGKILL")
    throw new Error(`${(error as Error).message}\nstdout:\n${running.output.stdout}\nstderr:\n${running.output.stderr}`)
  }
}

/** Send `signal` and wait for the exit. */
export const stop = (running: Running, signal: NodeJS.Signals = "SIGTERM"): Promise<Finished> => {
  running.child.kill(signal)
  return running.exited
}

/** What a migrated data directory is made from: every migration, the kernel, the server, the lock file. */
const migrationInputs = (): string => {
  const hash = createHash("sha256")
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.isFile()) hash.update(relative(root, path)).update("\0").update(readFileSync(path)).update("\0")
    }
  }
  for (const pkg of readdirSync(join(root, "packages")).sort()) walk(join(root, "packages", pkg, "src", "migrations"))
  walk(join(root, "packages", "kernel", "src"))
  walk(join(root, "packages", "server", "src"))
  hash.update(readFileSync(join(root, "package-lock.json")))
  return hash.digest("hex").slice(0, 16)
}

let template: Promise<string> | undefined

/**
 * Fill `dir` (absent or empty; else it is left as it is) with an embedded database on which every
 * migration has run, and answer `dir`: a copy of the data directory that `core-server migrate` made once for the
 * migrations as they are now (cached in `node_modules/.cache/core-test-data/`, shared by vitest's
 * workers and later runs). Migrating a fresh PGlite costs about 12 s of CPU; the copy, a fraction
 * of one. The copy has no `secret` file, so each server keeps its own CORE_SECRET as on a fresh
 * directory. Tests of the first start itself (migrations, the generated secret) start empty instead.
 */
export const migratedDataDir = async (dir: string): Promise<string> => {
  template ??= cachedFolder({
    root: join(root, "node_modules", ".cache", "core-test-data"),
    key: migrationInputs(),
    marker: "data",
    build: async (staging) => {
      const data = join(staging, "data")
      const migrated = await run(["migrate"], { CORE_DATA_DIR: data })
      if (migrated.code !== 0) throw new Error(`core-server migrate failed (${migrated.code})\n${migrated.stdout}\n${migrated.stderr}`)
      rmSync(join(data, "secret"), { force: true })
    }
  }).then(({ dir: folder }) => join(folder, "data"))
  const folder = await template
  if (!existsSync(dir) || readdirSync(dir).length === 0) cpSync(folder, dir, { recursive: true, errorOnExist: true, force: false })
  return dir
}

/** A server a test file shares: its base URL once `beforeAll` ran, and its output. */
export interface SharedServer {
  readonly base: string
  readonly running: Running
}

/**
 * Start `core-server start` on a new data directory in `beforeAll` (with `env` added) and kill it
 * and remove the directory in `afterAll`; read `base` inside the tests. The directory holds an
 * already migrated database ({@link migratedDataDir}). With `driver: "pg"` the server runs on a
 * scratch database of `CORE_TEST_DATABASE_URL` copied from the migrated template, dropped afterwards.
 */
export const useServer = (
  env: Record<string, string>,
  timeoutMs = 180_000,
  options: { readonly driver?: Database.Driver } = {}
): SharedServer => {
  const work = mkdtempSync(join(tmpdir(), "core-e2e-"))
  const shared = { base: "", running: undefined as unknown as Running }
  const scope = Effect.runSync(Scope.make())
  beforeAll(async () => {
    // On PostgreSQL, a copy of every domain's migrated template (the server finds nothing to migrate).
    const databaseUrl = options.driver === "pg"
      ? await Effect.runPromise(Scope.extend(
        TestDatabase.scratchDatabase(TestDatabase.url!, { domains: (await import("../src/Migrations.js")).DOMAINS }),
        scope
      ))
      : undefined
    const dataDir = env.CORE_DATA_DIR ?? join(work, "data")
    if (databaseUrl === undefined && env.DATABASE_URL === undefined) await migratedDataDir(dataDir)
    shared.running = launch(["start"], {
      PORT: "0",
      CORE_DATA_DIR: dataDir,
      ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
      ...env
    })
    shared.base = await ready(shared.running)
  }, timeoutMs)
  afterAll(async () => {
    shared.running?.child.kill("SIGKILL")
    await shared.running?.exited
    await Effect.runPromise(Scope.close(scope, Exit.void))
    rmSync(work, { recursive: true, force: true })
  }, timeoutMs)
  return shared
}
