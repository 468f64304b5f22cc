#!/usr/bin/env node
// Runs dist/main.js when the package is built. In a clone without a build, bundles the
// TypeScript source of the workspace packages with esbuild (resolving them through the `source`
// export condition, docs/decisions/0001) into node_modules/.cache and runs that: one module
// instead of a loader hook per file keeps the start fast (docs/decisions/0043). The bundle is
// reused while none of its inputs has changed.
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const built = new URL("../dist/main.js", import.meta.url)
const self = fileURLToPath(import.meta.url)
const root = resolve(dirname(self), "../../..")
const source = fileURLToPath(new URL("../src/main.ts", import.meta.url))
const cache = fileURLToPath(new URL("../node_modules/.cache/core-server/", import.meta.url))
const manifest = join(cache, "manifest.json")
const STALE_MS = 60 * 60 * 1000

const mtimes = (files) => Object.fromEntries(files.map((file) => [file, statSync(file).mtimeMs]))

const cached = () => {
  try {
    const { bundle, inputs } = JSON.parse(readFileSync(manifest, "utf8"))
    const now = mtimes(Object.keys(inputs))
    return existsSync(bundle) && Object.entries(inputs).every(([file, mtime]) => now[file] === mtime) ? bundle : undefined
  } catch {
    return undefined
  }
}

const keepOwnUrls = {
  name: "keep-own-urls",
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async ({ path }) => ({
      contents: (await readFile(path, "utf8")).replaceAll("import.meta.url", JSON.stringify(pathToFileURL(path).href)),
      loader: "ts"
    }))
  }
}

const externalDependencies = {
  name: "external-dependencies",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, ({ path }) => (path.startsWith("@core/") ? undefined : { external: true }))
  }
}

const writeAtomically = (file, contents) => {
  const staging = `${file}.${process.pid}.tmp`
  writeFileSync(staging, contents)
  renameSync(staging, file)
}

const prune = (keep) => {
  for (const name of readdirSync(cache)) {
    const file = join(cache, name)
    try {
      if (file !== keep && file !== manifest && Date.now() - statSync(file).mtimeMs > STALE_MS) unlinkSync(file)
    } catch {}
  }
}

const bundle = async () => {
  let esbuild
  try {
    esbuild = await import("esbuild")
  } catch {
    process.stderr.write("core-server: dist/ is missing and esbuild is not installed; run `npm run build` or `npm ci`\n")
    process.exit(1)
  }
  const result = await esbuild.build({
    entryPoints: [source],
    absWorkingDir: root,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: ["source"],
    sourcemap: "inline",
    metafile: true,
    write: false,
    logLevel: "error",
    plugins: [keepOwnUrls, externalDependencies]
  })
  const contents = result.outputFiles[0].contents
  const file = join(cache, `main-${createHash("sha256").update(contents).digest("hex").slice(0, 16)}.mjs`)
  const sources = Object.keys(result.metafile.inputs).map((input) => resolve(root, input))
  const packages = [...new Set(sources.map((input) => /^(.*\/packages\/[^/]+)\/src\//.exec(input)?.[1]).filter(Boolean))]
  mkdirSync(cache, { recursive: true })
  if (!existsSync(file)) writeAtomically(file, contents)
  writeAtomically(manifest, JSON.stringify({ bundle: file, inputs: mtimes([self, ...sources, ...packages.map((dir) => join(dir, "package.json"))]) }))
  prune(file)
  return file
}

if (existsSync(built)) {
  await import(built.href)
} else {
  process.setSourceMapsEnabled(true)
  await import(pathToFileURL(cached() ?? (await bundle())).href)
}
