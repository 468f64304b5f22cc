import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"

declare module "vitest" {
  export interface ProvidedContext {
    /** Where the shared servers of this run keep their records, data and output (tests/support/sharedServer.ts). */
    readonly sharedServers: string
  }
}

/**
 * The e2e project's global setup: a folder for this run's shared servers (started lazily, one per
 * worker, by the first file that asks), and, at the end of the run, every one of them stopped and
 * the folder removed.
 */
export default function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), "core-shared-servers-"))
  project.provide("sharedServers", dir)
  return () => {
    if (!existsSync(dir)) return
    for (const name of readdirSync(dir).filter((entry) => entry.endsWith(".json"))) {
      const { pids } = JSON.parse(readFileSync(join(dir, name), "utf8")) as { pids: ReadonlyArray<number> }
      for (const pid of pids) {
        try {
          process.kill(pid, "SIGKILL")
        } catch {
          // already gone
        }
      }
    }
    rmSync(dir, { recursive: true, force: true })
  }
}
