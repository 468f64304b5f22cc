import { readdir } from "node:fs/promises"
import { fileURLToPath, pathToFileURL } from "node:url"
import { type Figures, render } from "./Figures.js"

const here = fileURLToPath(new URL(".", import.meta.url))
const only = process.argv[2]
/** Benchmarks whose file is not named `*.bench.ts` (they also run alone with `node … bench/<file>`), by name. */
const registered: Readonly<Record<string, string>> = { "deploy-upload": "deploy-upload.ts" }
const files = [...(await readdir(here)).filter((file) => file.endsWith(".bench.ts")), ...Object.values(registered)]
  .filter((file) => !only || file.includes(only))
  .sort()

for (const file of files) {
  const bench = (await import(pathToFileURL(`${here}${file}`).href)) as { readonly run: () => Promise<Figures> }
  const started = Date.now()
  const figures = await bench.run()
  console.log(`\n${render(figures)}\n(${file}, ${((Date.now() - started) / 1000).toFixed(1)} s)`)
}
