#!/usr/bin/env node
// Runs the bundle when it has been built, else the TypeScript source through tsx (a fresh clone
// needs no build). CORE_CLI_SOURCE=1 forces the source even when a bundle exists.
import { existsSync } from "node:fs"
import { register } from "node:module"

const bundle = new URL("../dist/core.js", import.meta.url)

if (existsSync(bundle) && process.env.CORE_CLI_SOURCE !== "1") {
  await import(bundle.href)
} else {
  const { register: registerTsx } = await import("tsx/esm/api")
  registerTsx()
  register(
    "data:text/javascript,export const resolve = (specifier, context, next) =>" +
      " next(specifier, { ...context, conditions: [...new Set([...context.conditions, 'source'])] })"
  )
  await import(new URL("../src/main.ts", import.meta.url).href)
}
