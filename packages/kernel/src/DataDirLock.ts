import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

/** The name of the lock file inside a data directory. */
export const fileName = "core.lock"

/** Who holds a data directory. */
export interface Holder {
  readonly pid: number
  readonly hostname: string
  readonly token: string
  readonly acquiredAt: string
}

/**
 * A data directory could not be locked: another process holds it (`reason: "Locked"`, with its
 * `pid`), or the lock file could not be read or written (`reason: "Unavailable"`).
 */
export class DataDirLockError extends Data.TaggedError("DataDirLockError")<{
  readonly reason: "Locked" | "Unavailable"
  readonly directory: string
  readonly pid?: number | undefined
  readonly message: string
  readonly cause?: unknown
}> {}

const held = new Map<string, string>()

const keyOf = (directory: string): string => {
  try {
    return Fs.realpathSync(directory)
  } catch {
    return directory
  }
}
let exitHookInstalled = false

const lockPath = (directory: string) => Path.join(directory, fileName)

const readHolder = (file: string): Holder | undefined => {
  try {
    const holder = JSON.parse(Fs.readFileSync(file, "utf8")) as Partial<Holder>
    return typeof holder.pid === "number" && typeof holder.token === "string" ? holder as Holder : undefined
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw error
    return undefined
  }
}

const isAlive = (directory: string, holder: Holder | undefined): boolean => {
  if (holder === undefined) return false
  if (holder.hostname !== Os.hostname()) return true
  if (holder.pid === process.pid) return held.get(keyOf(directory)) !== undefined
  try {
    process.kill(holder.pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const lockedError = (directory: string, holder: Holder) =>
  new DataDirLockError({
    reason: "Locked",
    directory,
    pid: holder.pid,
    message: holder.hostname === Os.hostname()
      ? `Data directory ${directory} is in use by process ${holder.pid}; stop it or use another data directory`
      : `Data directory ${directory} is in use by process ${holder.pid} on host ${holder.hostname}; stop it or use another data directory`
  })

const createExclusive = (file: string, holder: Holder): boolean => {
  const staging = `${file}.${holder.token}`
  Fs.writeFileSync(staging, JSON.stringify(holder))
  try {
    Fs.linkSync(staging, file)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw error
  } finally {
    Fs.rmSync(staging, { force: true })
  }
}

const takeOverStale = (file: string, stale: Holder | undefined): void => {
  const aside = `${file}.stale-${randomUUID()}`
  try {
    Fs.renameSync(file, aside)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return
    throw error
  }
  const moved = readHolder(aside)
  if (moved?.token !== stale?.token) {
    Fs.linkSync(aside, file)
  }
  Fs.rmSync(aside, { force: true })
}

const releaseAll = () => {
  for (const [directory, token] of held) {
    try {
      if (readHolder(lockPath(directory))?.token === token) Fs.rmSync(lockPath(directory), { force: true })
    } catch {
      // the process is exiting; a lock left behind is stale and will be taken over
    }
  }
  held.clear()
}

const tryAcquire = (directory: string): Holder | DataDirLockError => {
  Fs.mkdirSync(directory, { recursive: true })
  const file = lockPath(directory)
  const holder: Holder = {
    pid: process.pid,
    hostname: Os.hostname(),
    token: randomUUID(),
    acquiredAt: new Date().toISOString()
  }
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createExclusive(file, holder)) return holder
    let current: Holder | undefined
    try {
      current = readHolder(file)
    } catch {
      continue
    }
    if (isAlive(directory, current)) return lockedError(directory, current!)
    takeOverStale(file, current)
  }
  const current = readHolder(file)
  return current ? lockedError(directory, current) : new DataDirLockError({
    reason: "Unavailable",
    directory,
    message: `Could not lock data directory ${directory}`
  })
}

/**
 * Locks `directory` for this process until the scope closes: writes `core.lock` holding the PID.
 * Fails with `DataDirLockError` (reason `"Locked"`, naming the directory and the holding PID)
 * when another process, or another opener in this one, holds it. A lock whose process is gone is
 * stale and taken over.
 */
export const acquire = (directory: string): Effect.Effect<void, DataDirLockError, Scope.Scope> => {
  const absolute = Path.resolve(directory)
  return Effect.acquireRelease(
    Effect.try({
      try: () => tryAcquire(absolute),
      catch: (cause) =>
        new DataDirLockError({
          reason: "Unavailable",
          directory: absolute,
          message: `Could not lock data directory ${absolute}: ${(cause as Error).message}`,
          cause
        })
    }).pipe(
      Effect.flatMap((result) => result instanceof DataDirLockError ? Effect.fail(result) : Effect.succeed(result)),
      Effect.tap((holder) =>
        Effect.sync(() => {
          held.set(keyOf(absolute), holder.token)
          if (!exitHookInstalled) {
            exitHookInstalled = true
            process.once("exit", releaseAll)
          }
        })
      )
    ),
    (holder) =>
      Effect.sync(() => {
        held.delete(keyOf(absolute))
        try {
          if (readHolder(lockPath(absolute))?.token === holder.token) Fs.rmSync(lockPath(absolute), { force: true })
        } catch {
          // already gone
        }
      })
  ).pipe(Effect.asVoid, Effect.withSpan("DataDirLock.acquire", { attributes: { directory: absolute } }))
}

/** The live holder of `directory`, if any (a stale lock counts as none). */
export const holder = (directory: string): Effect.Effect<Holder | undefined> =>
  Effect.sync(() => {
    const absolute = Path.resolve(directory)
    try {
      const current = readHolder(lockPath(absolute))
      return isAlive(absolute, current) ? current : undefined
    } catch {
      return undefined
    }
  })

/**
 * Fail with the same `Locked` error as {@link acquire} when a live process holds `directory`,
 * without taking the lock: for refusing early, before a process binds ports or opens files.
 */
export const ensureFree = (directory: string): Effect.Effect<void, DataDirLockError> =>
  Effect.flatMap(holder(directory), (current) =>
    current === undefined ? Effect.void : Effect.fail(lockedError(Path.resolve(directory), current)))
