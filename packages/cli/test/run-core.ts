import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"

/** The cli package's folder. */
export const cliRoot = fileURLToPath(new URL("..", import.meta.url))

/** The launcher in the repository: `packages/cli/bin/core.mjs`. */
export const launcher = fileURLToPath(new URL("../bin/core.mjs", import.meta.url))

/** What one run of the binary did. */
export interface CoreRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs `node <bin> ...args` as a child process, output piped (not a TTY). */
export const runCore = (
  args: ReadonlyArray<string>,
  options: { readonly bin?: string; readonly env?: Record<string, string> } = {}
): Promise<CoreRun> =>
  new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [options.bin ?? launcher, ...args],
      { env: { ...process.env, NO_COLOR: "1", ...options.env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== "number") return reject(error)
        resolve({ code: error === null ? 0 : (error.code as number), stdout, stderr })
      }
    )
  })
