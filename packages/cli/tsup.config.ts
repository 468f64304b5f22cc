import { defineConfig } from "tsup"

export default defineConfig({
  entry: { core: "src/main.ts" },
  format: ["esm"],
  platform: "node",
  target: "node20",
  splitting: false,
  noExternal: [/.*/],
  dts: false,
  clean: true,
  sourcemap: false,
  // Syntax only (dead branches, shorter literals): the bundle stays indented and readable, and
  // under the build test's budget (decision 0209).
  minifySyntax: true,
  banner: { js: "#!/usr/bin/env node" },
  esbuildOptions(options) {
    options.conditions = ["source"]
  }
})
