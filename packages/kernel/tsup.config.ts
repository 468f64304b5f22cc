import { defineConfig } from "tsup"

export default defineConfig({
  // The PGlite worker thread's script is an entry of its own: PgliteClient starts it by its path.
  entry: ["src/index.ts", "src/testing/index.ts", "src/testing/Poll.ts", "src/internal/pgliteWorker.ts"],
  format: ["esm"],
  dts: false,
  clean: true,
  sourcemap: true,
  target: "node20"
})
