import { Database, DataDirLock } from "@core/kernel"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const lockModule = fileURLToPath(new URL("../src/DataDirLock.ts", import.meta.url))

const tempDir = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), "core-lock-"))

/** A second Node process that locks `dataDir` as a running server does, and keeps it. */
const openInChild = (dataDir: string) =>
  Effect.async<ChildProcess, Error>((resume) => {
    const script = `
      import { Effect } from "effect"
      const DataDirLock = await import(${JSON.stringify(lockModule)})
      await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        yield* DataDirLock.acquire(${JSON.stringify(dataDir)})
        console.log("ready")
        yield* Effect.never
      })))
    `
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stderr = ""
    let settled = false
    const settle = (result: Effect.Effect<ChildProcess, Error>) => {
      if (!settled) resume(result)
      settled = true
    }
    child.stderr!.on("data", (chunk) => (stderr += chunk))
    child.stdout!.on("data", (chunk) => String(chunk).includes("ready") && settle(Effect.succeed(child)))
    child.on("exit", (code) => settle(Effect.fail(new Error(`child exited with ${code}: ${stderr}`))))
  })

const exited = (child: ChildProcess) =>
  Effect.async<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
  })

describe("DataDirLock", () => {
  it.live("refuses a second process on the same data directory, then takes over its stale lock", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      const child = yield* openInChild(dataDir)
      const lockFile = JSON.parse(Fs.readFileSync(Path.join(dataDir, "core.lock"), "utf8"))
      expect(lockFile.pid).toBe(child.pid)

      const refused = yield* Layer.build(Database.layer({ dataDir })).pipe(Effect.scoped, Effect.flip)
      expect(refused).toEqual(
        new DataDirLock.DataDirLockError({
          reason: "Locked",
          directory: dataDir,
          pid: child.pid,
          message: `Data directory ${dataDir} is in use by process ${child.pid}; stop it or use another data directory`
        })
      )

      child.kill("SIGKILL")
      yield* exited(child)
      expect(Fs.existsSync(Path.join(dataDir, "core.lock"))).toBe(true)
      yield* Effect.scoped(Effect.gen(function*() {
        yield* DataDirLock.acquire(dataDir)
        const holder = JSON.parse(Fs.readFileSync(Path.join(dataDir, "core.lock"), "utf8"))
        expect(holder.pid).toBe(process.pid)
      }))
      expect(Fs.existsSync(Path.join(dataDir, "core.lock"))).toBe(false)
      Fs.rmSync(dataDir, { recursive: true, force: true })
    }))

  it.live("refuses a second opener in the same process until the first releases", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      const first = yield* Effect.exit(Effect.scoped(Effect.gen(function*() {
        yield* DataDirLock.acquire(dataDir)
        const second = yield* Effect.scoped(DataDirLock.acquire(dataDir)).pipe(Effect.flip)
        expect(second.reason).toBe("Locked")
        expect(second.pid).toBe(process.pid)
        expect(yield* DataDirLock.holder(dataDir)).toMatchObject({ pid: process.pid })
      })))
      expect(first).toEqual(Exit.void)
      expect(yield* DataDirLock.holder(dataDir)).toBeUndefined()
      yield* Effect.scoped(DataDirLock.acquire(dataDir))
      Fs.rmSync(dataDir, { recursive: true, force: true })
    }))

  it.live("recognises the same directory reached through a symbolic link", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      const link = `${dataDir}-link`
      Fs.symlinkSync(dataDir, link)
      const refused = yield* Effect.scoped(Effect.zipRight(
        DataDirLock.acquire(dataDir),
        Effect.flip(Effect.scoped(DataDirLock.acquire(link)))
      ))
      expect(refused).toMatchObject({ reason: "Locked", pid: process.pid })
      Fs.rmSync(link)
      Fs.rmSync(dataDir, { recursive: true, force: true })
    }))

  it.live("takes over a lock left by a dead process or holding garbage", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      const lockFile = Path.join(dataDir, "core.lock")
      Fs.writeFileSync(lockFile, JSON.stringify({ pid: 2 ** 22 + 17, hostname: Os.hostname(), token: "old", acquiredAt: "" }))
      expect(yield* DataDirLock.holder(dataDir)).toBeUndefined()
      yield* Effect.scoped(DataDirLock.acquire(dataDir))
      Fs.writeFileSync(lockFile, "not json")
      yield* Effect.scoped(DataDirLock.acquire(dataDir))
      expect(Fs.readdirSync(dataDir)).toEqual([])
      Fs.rmSync(dataDir, { recursive: true, force: true })
    }))
})
