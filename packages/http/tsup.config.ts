import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["src/index.ts", "src/node.ts", "src/web.ts", "src/hono.ts", "src/express.ts"],
  format: ["esm"],
  dts: false,
  clean: true,
  sourcemap: true,
  target: "node20"
})
