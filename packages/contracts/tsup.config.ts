import { defineConfig } from "tsup"

// JavaScript only: the declarations are tsc's, one .d.ts per module (tsconfig.build.json). A rolled-up
// .d.ts dropped the type aliases that share a schema's name (issue 28, decision 0600).
export default defineConfig({
  entry: { index: "src/index.ts", routes: "src/RouteTable.ts" },
  format: ["esm"],
  dts: false,
  clean: true,
  sourcemap: true,
  target: "node20"
})
