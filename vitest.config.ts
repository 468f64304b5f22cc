import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

const resolve = { conditions: ["source", "module", "node", "import", "default"] }

export default defineConfig({
  resolve,
  ssr: { resolve: { conditions: ["source", "node", "default"], externalConditions: ["source"] } },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "packages",
          include: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts"],
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
          testTimeout: 30_000,
          hookTimeout: 60_000
        }
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["tests/**/*.test.ts", "examples/*/test/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000
        }
      }
    ],
    pool: "forks",
    // Two files at a time even on two cores: the end-to-end files mostly wait on the servers and
    // binaries they start, and one at a time left a core idle (decision 0023).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    minWorkers: 1,
    globalSetup: [],
    // CORE_TEST_TIMES=<file>: one JSON line per test file with its time (.ci/run prints the slowest).
    reporters: process.env.CORE_TEST_TIMES ? ["default", "./scripts/file-times.mjs"] : ["default"]
  }
})
