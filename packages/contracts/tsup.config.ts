import { defineConfig } from "tsup"

export default defineConfig({
  entry: { index: "src/index.ts", routes: "src/RouteTable.ts" },
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20"
})
