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
    globalSetup: []
  }
})
