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
  banner: { js: "#!/usr/bin/env node" },
  esbuildOptions(options) {
    options.conditions = ["source"]
  }
})
