import { defineConfig } from "tsup"

// JavaScript only, with the contracts the SDK uses bundled in (one package to install: decision
// 0601); the declarations are tsc's, one .d.ts per module, written by scripts/build-types.mjs
// (decision 0600).
export default defineConfig({
  entry: { index: "src/index.ts", contracts: "src/contracts.ts", routes: "src/routes.ts" },
  format: ["esm"],
  dts: false,
  clean: true,
  sourcemap: true,
  target: "node20",
  // The contracts from their sources beside this package (tsconfig.bundle.json's paths), not an
  // installed @core/contracts: the SDK's package does not depend on it.
  tsconfig: "tsconfig.bundle.json",
  noExternal: [/^@core\/contracts(\/.*)?$/],
  external: ["ky", "zod", /^zod\//]
})
