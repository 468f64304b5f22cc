import { availableParallelism } from "node:os"
import { configDefaults, defineConfig } from "vitest/config"
import { unitFiles } from "./scripts/unit-suites.mjs"

/** The unit files (scripts/unit-suites.mjs): the `unit` project, not the `packages` or `e2e` one. */
const unit = unitFiles()

const resolve = { conditions: ["source", "module", "node", "import", "default"] }

export default defineConfig({
  resolve,
  ssr: { resolve: { conditions: ["source", "node", "default"], externalConditions: ["source"] } },
  test: {
    projects: [
      {
        // Files that start nothing and reach no store: worker threads that keep one module graph
        // for every file they run (`poolOptions.threads.isolate` below), before the other projects,
        // so that loading the same sources once per file is not most of their time (decision 0590).
        extends: true,
        test: {
          name: "unit",
          include: unit,
          pool: "threads",
          sequence: { groupOrder: 0 },
          testTimeout: 30_000,
          hookTimeout: 60_000
        }
      },
      {
        extends: true,
        test: {
          name: "packages",
          include: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...unit],
          // One process per worker that loads the sources once for every file it runs, instead of a
          // new process per file: a package's files only share that (each makes its own database
          // and harness), and loading was a fifth of their time (decision 0614).
          // CORE_TEST_ISOLATE=1 gives every file its own process again (to tell a leak between files).
          poolOptions: { forks: { isolate: process.env.CORE_TEST_ISOLATE === "1" } },
          sequence: { groupOrder: 1 },
          testTimeout: 30_000,
          hookTimeout: 60_000
        }
      },
      {
        extends: true,
        test: {
          name: "gateway-node",
          include: [
            "packages/gateway/test/Gateway.test.ts",
            "packages/gateway/test/Authentication.test.ts",
            "packages/gateway/test/RateLimit.test.ts",
            "packages/gateway/test/Metrics.test.ts"
          ],
          env: { CORE_GATEWAY_TRANSPORT: "node" },
          sequence: { groupOrder: 1 },
          testTimeout: 30_000,
          hookTimeout: 60_000
        }
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["tests/**/*.test.ts", "examples/*/test/**/*.test.ts"],
          // One all-in-one server per worker for the files that only need one running, started by
          // the first that asks and stopped at the end (tests/support/sharedServer.ts, decision 0625).
          globalSetup: ["./tests/support/sharedServerSetup.ts"],
          exclude: [...configDefaults.exclude, ...unit],
          sequence: { groupOrder: 1 },
          testTimeout: 60_000,
          hookTimeout: 120_000
        }
      }
    ],
    pool: "forks",
    // The threads pool is the unit project's alone: one module graph per worker thread.
    poolOptions: { threads: { isolate: false } },
    // Two files at a time even on two cores: the end-to-end files mostly wait on the servers and
    // binaries they start, and one at a time left a core idle (decision 0023).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    minWorkers: 1,
    globalSetup: [],
    // CORE_TEST_TIMES=<file>: one JSON line per test file with its time (.ci/run prints the slowest).
    reporters: process.env.CORE_TEST_TIMES ? ["default", "./scripts/file-times.mjs"] : ["default"],
    // …and the CPU each file used, which a busy machine does not inflate (tests/support/fileCpu.ts).
    setupFiles: process.env.CORE_TEST_TIMES ? ["./tests/support/fileCpu.ts"] : []
  }
})
