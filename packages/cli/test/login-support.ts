import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { builtCli } from "./built-cli.js"
import { runCore, type CoreRun } from "./run-core.js"

/** A temporary home directory for one test, with the paths of its credential file. */
export interface TempHome {
  readonly home: string
  readonly dir: string
  readonly file: string
  /** The credential file parsed, or undefined when it does not exist. */
  readonly read: () => Record<string, unknown> | undefined
  /** Permission bits of the file and of `~/.core/`. */
  readonly modes: () => { readonly file: number; readonly dir: number }
  readonly remove: () => void
}

/** Makes a fresh `HOME` for the `core` binary. */
export const tempHome = (): TempHome => {
  const home = mkdtempSync(join(tmpdir(), "core-home-"))
  const dir = join(home, ".core")
  const file = join(dir, "credentials.json")
  return {
    home,
    dir,
    file,
    read: () => {
      try {
        return JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>
      } catch {
        return undefined
      }
    },
    modes: () => ({ file: statSync(file).mode & 0o777, dir: statSync(dir).mode & 0o777 }),
    remove: () => rmSync(home, { recursive: true, force: true })
  }
}

/**
 * Writes the credential file `core login` would write for `token` against the server at `base`
 * (a static key cannot log in by `--token`: it is no identity token), never expiring.
 */
export const writeLogin = (home: TempHome, base: string, token: string, platformId: string | null, role: string): void => {
  mkdirSync(home.dir, { recursive: true, mode: 0o700 })
  writeFileSync(home.file, JSON.stringify({
    token, refreshToken: null, email: "ci-user", platformId, role,
    expiresAt: "2999-01-01T00:00:00.000Z", iamUrl: `${base}/api/v1/iam`, apiUrl: base, audience: "core-cli"
  }), { mode: 0o600 })
}

/**
 * The environment every test run gets: the temporary home, no ambient addresses, and the source
 * build for the tests that run the launcher (packages/cli/bin/core.mjs) themselves.
 */
export const baseEnv = (home: TempHome, env: Record<string, string> = {}): Record<string, string> => ({
  HOME: home.home,
  CORE_CLI_SOURCE: "1",
  CORE_IAM_URL: "",
  CORE_API_URL: "",
  ...env
})

/**
 * Runs the real `core` binary with output piped: by default the bundle as it is published
 * ({@link builtCli}, built once for the sources as they are, not a stale packages/cli/dist), which
 * starts in a fraction of the CPU the TypeScript source through tsx takes (tests/cli-build.test.ts
 * and tests/cli.test.ts run the source and compare the two).
 */
export const core = async (home: TempHome, args: ReadonlyArray<string>, env: Record<string, string> = {}, bin?: string): Promise<CoreRun> =>
  runCore(args, { env: baseEnv(home, env), bin: bin ?? (await builtCli()).bundle })

/** A `core` process whose stdout can be watched while it runs. */
export interface LiveCore {
  /** Resolves with the first stdout line matching `pattern`. */
  readonly waitForLine: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpExecArray>
  readonly done: Promise<CoreRun>
}

/** Starts the real binary (the built bundle, as {@link core}) and lets the test react to its output (e.g. approve the printed code). */
export const spawnCore = (home: TempHome, args: ReadonlyArray<string>, env: Record<string, string> = {}): LiveCore => {
  let stdout = ""
  let stderr = ""
  const watchers: Array<() => void> = []
  const built = builtCli()
  const done = built.then(({ bundle }) => {
    const child = spawn(process.execPath, [bundle, ...args], {
      env: { ...process.env, NO_COLOR: "1", ...baseEnv(home, env) },
      stdio: ["ignore", "pipe", "pipe"]
    })
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
      for (const watcher of [...watchers]) watcher()
    })
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    return new Promise<CoreRun>((resolve) => child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr })))
  })
  // The deadline counts from the start of the process, not from the build.
  const waitForLine = (pattern: RegExp, timeoutMs = 30_000) =>
    built.then(() => new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`No line matching ${pattern} in: ${stdout}${stderr}`)), timeoutMs)
      const check = () => {
        const match = pattern.exec(stdout)
        if (match === null) return
        clearTimeout(timer)
        watchers.splice(watchers.indexOf(check), 1)
        resolve(match)
      }
      watchers.push(check)
      check()
    }))
  return { waitForLine, done }
}
