import { randomBytes } from "node:crypto"
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  chmodSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats
} from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { CliError } from "./errors.js"

/** The `audience` of every credential record. */
export const AUDIENCE = "core-cli"

/** The credential record (docs/guides/cli-login.md), plus the gateway address `apiUrl`. */
export interface Credentials {
  /** Access token: a session token from device login, or the token given to `core login --token`. */
  readonly token: string
  readonly refreshToken: string | null
  /** `ci-user` when token mode could not reach the identity service. */
  readonly email: string
  readonly platformId: string | null
  readonly role: string
  /** ISO 8601. */
  readonly expiresAt: string
  readonly iamUrl: string
  readonly apiUrl: string
  readonly audience: typeof AUDIENCE
}

/** Where the credential file lives: `~/.core/credentials.json`, with `HOME` from the environment. */
export interface CredentialPaths {
  readonly dir: string
  readonly file: string
}

type Env = Readonly<Record<string, string | undefined>>

const FILE_MODE = 0o600
const DIR_MODE = 0o700
const posix = process.platform !== "win32"

/** The credential paths for an environment (`HOME`, else `USERPROFILE`, else the OS's home). */
export const credentialPaths = (env: Env): CredentialPaths => {
  const home = env.HOME || env.USERPROFILE || homedir()
  const dir = join(home, ".core")
  return { dir, file: join(dir, "credentials.json") }
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`
const uid = () => (posix && typeof process.getuid === "function" ? process.getuid() : undefined)

const fail = (code: string, message: string) => new CliError(message, 1, code)

const statOrUndefined = (path: string): Stats | undefined => {
  try {
    return lstatSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw fail("CREDENTIALS_UNREADABLE", `Cannot read ${path}: ${(error as Error).message}`)
  }
}

const checkOwner = (path: string, stats: Stats, what: string) => {
  const self = uid()
  if (self !== undefined && stats.uid !== self) {
    throw fail(
      "CREDENTIALS_FOREIGN_OWNER",
      `The credential ${what} ${path} belongs to another user (uid ${stats.uid}); refusing to use it. Remove it, then run: core login`
    )
  }
}

const checkDirectory = (paths: CredentialPaths, stats: Stats) => {
  if (!stats.isDirectory()) throw fail("CREDENTIALS_NOT_A_DIRECTORY", `${paths.dir} is not a directory. Remove it, then run: core login`)
  if (!posix) return
  checkOwner(paths.dir, stats, "directory")
  if ((stats.mode & 0o022) !== 0) {
    throw fail(
      "CREDENTIALS_PERMISSIONS",
      `The credential directory ${paths.dir} is writable by other users (mode ${octal(stats.mode)}). Run: chmod 700 ${paths.dir}`
    )
  }
}

const checkFile = (paths: CredentialPaths, stats: Stats) => {
  if (stats.isSymbolicLink()) throw fail("CREDENTIALS_SYMLINK", `The credential file ${paths.file} is a symbolic link; refusing to follow it. Remove it, then run: core login`)
  if (!stats.isFile()) throw fail("CREDENTIALS_NOT_A_FILE", `${paths.file} is not a regular file. Remove it, then run: core login`)
  if (!posix) return
  checkOwner(paths.file, stats, "file")
  if ((stats.mode & 0o077) !== 0) {
    throw fail(
      "CREDENTIALS_PERMISSIONS",
      `The credential file ${paths.file} is accessible to other users (mode ${octal(stats.mode)}). Run: chmod 600 ${paths.file}`
    )
  }
}

const nullableString = (value: unknown) => value === null || typeof value === "string"

/** Checks a parsed record; answers what is wrong with it, or undefined. */
const problemOf = (record: Record<string, unknown>): string | undefined => {
  for (const field of ["token", "email", "role", "expiresAt", "iamUrl", "apiUrl"] as const) {
    if (typeof record[field] !== "string" || record[field] === "") return `field '${field}' is missing or not a string`
  }
  if (!nullableString(record.refreshToken ?? null)) return "field 'refreshToken' is not a string or null"
  if (!nullableString(record.platformId ?? null)) return "field 'platformId' is not a string or null"
  if (Number.isNaN(Date.parse(record.expiresAt as string))) return "field 'expiresAt' is not an ISO 8601 timestamp"
  if (record.audience !== AUDIENCE) return `field 'audience' is not '${AUDIENCE}'`
  return undefined
}

const corrupt = (paths: CredentialPaths, reason: string) =>
  fail("CREDENTIALS_CORRUPT", `The credential file ${paths.file} is corrupt (${reason}). Run: core login`)

/**
 * Reads the credential record. Answers `null` when there is none (no file, or `{}` after logout).
 * Fails with a {@link CliError} (exit 1) when the file is corrupt, a symbolic link, owned by another
 * user, or readable by others.
 */
export const readCredentials = (paths: CredentialPaths): Credentials | null => {
  const dirStats = statOrUndefined(paths.dir)
  if (dirStats === undefined) return null
  checkDirectory(paths, dirStats)
  const stats = statOrUndefined(paths.file)
  if (stats === undefined) return null
  checkFile(paths, stats)
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(paths.file, "utf8"))
  } catch (error) {
    if (error instanceof SyntaxError) throw corrupt(paths, "not valid JSON")
    throw fail("CREDENTIALS_UNREADABLE", `Cannot read ${paths.file}: ${(error as Error).message}`)
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw corrupt(paths, "not a JSON object")
  const record = parsed as Record<string, unknown>
  if (Object.keys(record).length === 0) return null
  const problem = problemOf(record)
  if (problem !== undefined) throw corrupt(paths, problem)
  return {
    token: record.token as string,
    refreshToken: (record.refreshToken ?? null) as string | null,
    email: record.email as string,
    platformId: (record.platformId ?? null) as string | null,
    role: record.role as string,
    expiresAt: record.expiresAt as string,
    iamUrl: record.iamUrl as string,
    apiUrl: record.apiUrl as string,
    audience: AUDIENCE
  }
}

/** Creates `~/.core/` with mode 0700 when it is missing, and checks it when it exists. */
const ensureDirectory = (paths: CredentialPaths) => {
  const existing = statOrUndefined(paths.dir)
  if (existing === undefined) {
    mkdirSync(paths.dir, { recursive: true, mode: DIR_MODE })
    if (posix) chmodSync(paths.dir, DIR_MODE)
    return
  }
  if (!existing.isDirectory()) throw fail("CREDENTIALS_NOT_A_DIRECTORY", `${paths.dir} is not a directory. Remove it, then run: core login`)
  if (!posix) return
  checkOwner(paths.dir, existing, "directory")
  if ((existing.mode & 0o777) !== DIR_MODE) chmodSync(paths.dir, DIR_MODE)
}

/**
 * Replaces the file with `content` atomically: a temporary file in the same directory, its mode
 * set, written and fsynced, then renamed over the file (and the directory fsynced).
 */
const writeAtomically = (paths: CredentialPaths, content: string, mode: number) => {
  const temporary = join(paths.dir, `.credentials.json.${process.pid}.${randomBytes(6).toString("hex")}.tmp`)
  let fd: number | undefined
  try {
    fd = openSync(temporary, "wx", mode)
    if (posix) fchmodSync(fd, mode)
    writeSync(fd, content)
    fsyncSync(fd)
    closeSync(fd)
    fd = undefined
    renameSync(temporary, paths.file)
  } catch (error) {
    if (fd !== undefined) closeSync(fd)
    rmSync(temporary, { force: true })
    throw fail("CREDENTIALS_UNWRITABLE", `Cannot write ${paths.file}: ${(error as Error).message}`)
  }
  if (posix) {
    try {
      const dirFd = openSync(paths.dir, "r")
      try {
        fsyncSync(dirFd)
      } finally {
        closeSync(dirFd)
      }
    } catch {
      /* Some file systems cannot fsync a directory; the rename itself is still atomic. */
    }
  }
}

const serialize = (credentials: Credentials) =>
  `${JSON.stringify(
    {
      token: credentials.token,
      refreshToken: credentials.refreshToken,
      email: credentials.email,
      platformId: credentials.platformId,
      role: credentials.role,
      expiresAt: credentials.expiresAt,
      iamUrl: credentials.iamUrl,
      apiUrl: credentials.apiUrl,
      audience: AUDIENCE
    },
    null,
    2
  )}\n`

/** Writes the record atomically with mode 0600, creating `~/.core/` (0700) when needed. */
export const writeCredentials = (paths: CredentialPaths, credentials: Credentials): void => {
  ensureDirectory(paths)
  const existing = statOrUndefined(paths.file)
  if (existing !== undefined) {
    if (existing.isSymbolicLink() || !existing.isFile()) checkFile(paths, existing)
    if (posix) checkOwner(paths.file, existing, "file")
  }
  writeAtomically(paths, serialize(credentials), FILE_MODE)
}

/**
 * `core logout`: the file stays, holding `{}`, with its mode kept. Answers false when there was
 * no file to clear. A file owned by another user or a symbolic link is refused.
 */
export const clearCredentials = (paths: CredentialPaths): boolean => {
  const dirStats = statOrUndefined(paths.dir)
  if (dirStats === undefined) return false
  checkDirectory(paths, dirStats)
  const stats = statOrUndefined(paths.file)
  if (stats === undefined) return false
  if (stats.isSymbolicLink() || !stats.isFile()) checkFile(paths, stats)
  if (posix) checkOwner(paths.file, stats, "file")
  writeAtomically(paths, "{}\n", posix ? stats.mode & 0o777 : FILE_MODE)
  return true
}

const LOCK_STALE_MS = 30_000

/**
 * Runs `action` while holding `credentials.json.lock` (created exclusively), so that two `core`
 * processes never spend the same refresh token: the second waits, then reads the rotated pair.
 */
export const withCredentialLock = async <A>(paths: CredentialPaths, action: () => Promise<A>, waitMs = 10_000): Promise<A> => {
  ensureDirectory(paths)
  const lock = `${paths.file}.lock`
  const deadline = Date.now() + waitMs
  for (;;) {
    try {
      closeSync(openSync(lock, "wx", FILE_MODE))
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw fail("CREDENTIALS_UNWRITABLE", `Cannot lock ${paths.file}: ${(error as Error).message}`)
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now())
      if (age > LOCK_STALE_MS) rmSync(lock, { force: true })
      else if (Date.now() > deadline) throw fail("CREDENTIALS_LOCKED", `Another core process holds ${lock}. Try again, or remove the lock file.`)
      else await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  try {
    return await action()
  } finally {
    try {
      unlinkSync(lock)
    } catch {
      /* Already removed as stale by another process. */
    }
  }
}
