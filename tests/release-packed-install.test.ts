import { type ChildProcess, execFile, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runsOncePerCi } from "./support/once.js"
import { eventuallyDefined } from "./support/poll.js"

/**
 * The release as a user outside this repository gets it (decisions 0530–0533, 0600–0602, 0635,
 * 0636): every public package built as its `prepack` builds it (the declarations of all of them in
 * one tsc program) and packed by `npm pack`, from a copy of the working tree, linted with publint
 * and attw, installed from the tarballs into a fresh
 * project under the system's temporary folder (no workspace, no links), and the SDK's tarball alone
 * into another, then used: the SDK and the contracts from ESM and from TypeScript (`bundler` and
 * `node16`, `skipLibCheck: false`, exact types: tests/fixtures/sdk-user-types.ts), `npx core`, and
 * `npx core-server start` answering `/health`. Packed once, installed once per project, from the
 * npm cache (`--prefer-offline`); the lint runs while the projects install, and the type checks,
 * the CLI and the server run side by side.
 */
const root = fileURLToPath(new URL("..", import.meta.url))
const tsc = join(root, "node_modules", ".bin", "tsc")
/** The npm cache the repository's installs use, so third-party packages come from it when they can. */
const npmCache = process.env.npm_config_cache ?? join(process.env.HOME ?? tmpdir(), ".npm")

interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * A user's environment: PATH and HOME, none of this repository's npm settings (`npm test` exports
 * its `.npmrc`, such as legacy-peer-deps, as npm_config_* variables) and no Core configuration.
 */
const userEnv = (extra: Record<string, string> = {}): Record<string, string> => {
  const env: Record<string, string> = { NODE_ENV: "development", npm_config_cache: npmCache, npm_config_update_notifier: "false" }
  for (const name of ["PATH", "HOME", "TMPDIR"]) if (process.env[name] !== undefined) env[name] = process.env[name]
  return { ...env, ...extra }
}

/** stderr without npm's own warnings (a machine's global npmrc may have settings npm no longer knows). */
const withoutNpmWarnings = (stderr: string): string => stderr.split("\n").filter((line) => !line.startsWith("npm warn")).join("\n")

const run = (command: string, args: ReadonlyArray<string>, cwd: string, env = userEnv(), timeout = 300_000): Promise<Finished> =>
  new Promise((resolve) => {
    execFile(command, args, { cwd, env, timeout, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    )
  })

/** `npm install` in `dir` from the npm cache where it can, quietly. */
const install = (dir: string, args: ReadonlyArray<string> = []) =>
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel", "error", ...args], dir, userEnv(), 400_000)

/** A TypeScript project of one file checked as a user's editor would, declarations included. */
const writeTsProject = (dir: string, resolution: "bundler" | "node16", file: string, source: string) => {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2022", "DOM"],
      module: resolution === "bundler" ? "ESNext" : "Node16",
      moduleResolution: resolution === "bundler" ? "Bundler" : "Node16",
      strict: true,
      noEmit: true,
      // false: an error inside a published .d.ts fails the check (true hid the broken rolled-up ones).
      skipLibCheck: false,
      types: []
    },
    files: [file]
  }, null, 2))
  writeFileSync(join(dir, file), source)
}

describe.runIf(runsOncePerCi)("the packed packages, installed outside the repository", () => {
  let work = ""
  let project = ""
  /** A project with the SDK's tarball alone: what `npm install <core-sdk-0.1.0.tgz>` gives a user. */
  let sdkOnly = ""
  let tarballs: Record<string, string> = {}
  let linted: Promise<Finished> | undefined
  const started: Array<ChildProcess> = []

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "core-release-"))
    project = join(work, "project")
    const tarballDir = join(work, "tarballs")
    // CORE_RELEASE_TARBALLS=<dir> reuses tarballs packed earlier by scripts/pack-packages.mjs (a local shortcut).
    const reuse = process.env.CORE_RELEASE_TARBALLS
    if (reuse !== undefined && reuse !== "") {
      tarballs = Object.fromEntries(readdirSync(reuse).flatMap((file) => {
        const match = /^core-([a-z-]+)-\d+\.\d+\.\d+\.tgz$/.exec(file)
        return match === null ? [] : [[`@core/${match[1]}`, join(reuse, file)]]
      }))
    } else {
      // --no-check: the declarations without type-checking the sources a second time (the same
      // files); `npm test` type-checks every packages/*/src with these settings before this runs.
      const packed = await run(process.execPath, [join(root, "scripts", "pack-packages.mjs"), "--out", tarballDir, "--jobs", "2", "--no-check"], root, userEnv(), 840_000)
      expect(packed, packed.stderr).toMatchObject({ code: 0 })
      tarballs = (JSON.parse(packed.stdout) as { tarballs: Record<string, string> }).tarballs
    }

    // publint and attw (CPU) while the two projects install (mostly I/O); awaited by their test.
    linted = run(process.execPath, [join(root, "scripts", "check-packages.mjs"), ...Object.values(tarballs)], root, userEnv(), 840_000)

    mkdirSync(project, { recursive: true })
    writeFileSync(join(project, "package.json"), `${JSON.stringify({
      name: "core-packed-install",
      private: true,
      type: "module",
      dependencies: Object.fromEntries(Object.entries(tarballs).map(([name, file]) => [name, `file:${file}`]))
    }, null, 2)}\n`)
    sdkOnly = join(work, "sdk-only")
    mkdirSync(sdkOnly, { recursive: true })
    writeFileSync(join(sdkOnly, "package.json"), `${JSON.stringify({ name: "core-sdk-alone", private: true, type: "module" }, null, 2)}\n`)
    // The SDK's README: `npm install <path to core-sdk-0.1.0.tgz>`, nothing else.
    const [installed, sdkInstalled] = await Promise.all([install(project), install(sdkOnly, [tarballs["@core/sdk"]!])])
    expect(installed, installed.stderr).toMatchObject({ code: 0 })
    expect(sdkInstalled, sdkInstalled.stderr).toMatchObject({ code: 0 })
  }, 1_200_000)

  afterAll(async () => {
    await linted
    for (const child of started) {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
      } catch {
        // the group has ended
      }
    }
    if (work !== "") rmSync(work, { recursive: true, force: true })
  })

  it("packs every public package of packages/*, each tarball with its built dist/ and README", () => {
    const dirs = readdirSync(join(root, "packages")).filter((dir) => existsSync(join(root, "packages", dir, "package.json")))
    expect(dirs.length).toBeGreaterThanOrEqual(14)
    expect(Object.keys(tarballs).sort()).toEqual(dirs.map((dir) => `@core/${dir}`).sort())
    const installed = (name: string) =>
      JSON.parse(readFileSync(join(project, "node_modules", name, "package.json"), "utf8")) as { version: string; exports: Record<string, unknown>; bin?: Record<string, string>; dependencies?: Record<string, string> }
    for (const name of Object.keys(tarballs)) {
      const manifest = installed(name)
      expect(manifest.version).toBe("0.1.0")
      expect(existsSync(join(project, "node_modules", name, "README.md")), `${name} README.md`).toBe(true)
      // Every published target of the exports map and of bin is in the tarball (the source condition's too).
      const targets = [...JSON.stringify(manifest.exports).matchAll(/:"(\.\/[^"]+)"/g)].map((match) => match[1]).concat(Object.values(manifest.bin ?? {}))
      expect(targets.length).toBeGreaterThan(0)
      for (const target of targets) expect(existsSync(join(project, "node_modules", name, target)), `${name}: ${target}`).toBe(true)
      // Internal dependencies name the exact version packed beside them.
      for (const [dependency, range] of Object.entries(manifest.dependencies ?? {})) if (dependency.startsWith("@core/")) expect({ name, dependency, range }).toEqual({ name, dependency, range: "0.1.0" })
    }
  })

  it("installs the SDK from its tarball alone: ky and zod from the registry, no other @core package", () => {
    const manifest = JSON.parse(readFileSync(join(sdkOnly, "node_modules", "@core", "sdk", "package.json"), "utf8")) as { dependencies?: Record<string, string> }
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual(["ky", "zod"])
    expect(readdirSync(join(sdkOnly, "node_modules", "@core"))).toEqual(["sdk"])
    expect(JSON.parse(readFileSync(join(sdkOnly, "package.json"), "utf8"))).toMatchObject({ dependencies: { "@core/sdk": expect.stringMatching(/core-sdk-0\.1\.0\.tgz$/) } })
  })

  it("passes publint and @arethetypeswrong/cli (esm-only profile) for every package", async () => {
    const checked = await linted!
    expect(checked, `${checked.stdout}\n${checked.stderr}`).toMatchObject({ code: 0 })
    expect(checked.stdout.trim().split("\n").filter((line) => /^(ok|FAIL)/.test(line))).toHaveLength(Object.keys(tarballs).length)
  }, 900_000)

  it("imports the SDK and the contracts from ESM with plain node", async () => {
    writeFileSync(join(project, "esm.mjs"), [
      `import { createClient, CoreApiError, NotFoundError } from "@core/sdk"`,
      `import { ErrorEnvelope, buildPath } from "@core/contracts"`,
      `import { ROUTE_REFS } from "@core/contracts/routes"`,
      `const answers = [new Response("ok", { status: 200, headers: { "content-type": "text/plain" } }),`,
      `  Response.json({ error: { code: "not_found", message: "No such platform.", requestId: "req_1", details: null } }, { status: 404 })]`,
      `const client = createClient({ baseUrl: "http://core.invalid", retry: 0, fetch: async () => answers.shift() })`,
      `const health = await client.health()`,
      `const failure = await client.request("GET", "/api/v1/platforms/plt_1").catch((error) => error)`,
      `console.log(JSON.stringify({`,
      `  health,`,
      `  notFound: failure instanceof NotFoundError && failure instanceof CoreApiError,`,
      `  code: failure.code, requestId: failure.requestId,`,
      `  envelope: ErrorEnvelope.safeParse({ error: { code: "x", message: "y", requestId: "req_2" } }).success,`,
      `  badEnvelope: ErrorEnvelope.safeParse({ error: {} }).success,`,
      `  path: buildPath("/api/v1/platforms/:platformId", { platformId: "plt_1" }),`,
      `  services: Object.keys(ROUTE_REFS).includes("Registry")`,
      `}))`
    ].join("\n"))
    const ran = await run(process.execPath, ["esm.mjs"], project)
    expect(ran, ran.stderr).toMatchObject({ code: 0 })
    expect(JSON.parse(ran.stdout)).toEqual({
      health: "ok", notFound: true, code: "not_found", requestId: "req_1", envelope: true, badEnvelope: false,
      path: "/api/v1/platforms/plt_1", services: true
    })

    // The SDK alone: its contracts and route table come inside it.
    writeFileSync(join(sdkOnly, "esm.mjs"), [
      `import { createClient } from "@core/sdk"`,
      `import { ErrorEnvelope, Registry } from "@core/sdk/contracts"`,
      `import { AccountRouteRefs, ROUTE_REFS, buildPath } from "@core/sdk/routes"`,
      `const client = createClient({ baseUrl: "http://core.invalid", retry: 0, fetch: async () => new Response("ok", { status: 200 }) })`,
      `console.log(JSON.stringify({`,
      `  health: await client.health(),`,
      `  tenants: client.registry.tenants === client.registry.entities,`,
      `  envelope: ErrorEnvelope.safeParse({ error: { code: "x", message: "y", requestId: "req_2" } }).success,`,
      `  environments: Registry.ResourceEnvironment.options,`,
      `  session: AccountRouteRefs.getSession.path,`,
      `  path: buildPath("/api/v1/platforms/:platformId", { platformId: "plt_1" }),`,
      `  services: Object.keys(ROUTE_REFS).length`,
      `}))`
    ].join("\n"))
    const alone = await run(process.execPath, ["esm.mjs"], sdkOnly)
    expect(alone, alone.stderr).toMatchObject({ code: 0 })
    expect(JSON.parse(alone.stdout)).toEqual({
      health: "ok", tenants: true, envelope: true, environments: ["dev", "stg", "prod"], session: "/api/auth/get-session",
      path: "/api/v1/platforms/plt_1", services: 8
    })
  }, 120_000)

  // Concurrent: four tsc runs, sharing the machine's cores instead of one after the other.
  it.concurrent.each(["bundler", "node16"] as const)("type-checks the SDK installed alone from TypeScript with moduleResolution %s, declarations included, its types exact", async (resolution) => {
    const dir = join(sdkOnly, `ts-${resolution}`)
    writeTsProject(dir, resolution, "index.ts", readFileSync(join(root, "tests", "fixtures", "sdk-user-types.ts"), "utf8"))
    // The check can fail: an `any` where the fixture expects a type is an error. In the same program
    // (one tsc run, not two): its one error is the only line tsc prints, so index.ts has none.
    writeFileSync(join(dir, "wrong.ts"), `import type { CoreClient } from "@core/sdk"\nexport const report: Awaited<ReturnType<CoreClient["iam"]["health"]>> = { status: "up", checks: {} }\n`)
    writeFileSync(join(dir, "tsconfig.wrong.json"), JSON.stringify({ extends: "./tsconfig.json", files: ["index.ts", "wrong.ts"] }))
    const checked = await run(tsc, ["-p", "tsconfig.wrong.json"], dir, userEnv(), 880_000)
    expect(checked.code, checked.stdout).not.toBe(0)
    // tsc prints a union's members in the order it met them, which differs between runs.
    // Every error's first line (an elaboration's lines are indented): the one expected, no other.
    expect(checked.stdout.trim().split("\n").filter((line) => !/^\s/.test(line)), checked.stdout).toEqual([
      expect.stringMatching(/^wrong\.ts\(2,\d+\): error TS2322: Type '"up"' is not assignable to type '("healthy" \| "degraded"|"degraded" \| "healthy")'\.$/)
    ])
  }, 900_000)

  it.concurrent.each(["bundler", "node16"] as const)("type-checks @core/contracts beside the SDK with moduleResolution %s, declarations included: the contracts' refs call through the SDK", async (resolution) => {
    const dir = join(project, `ts-${resolution}`)
    writeTsProject(dir, resolution, "index.ts", [
      `import { createClient, CoreApiError, type CoreClient } from "@core/sdk"`,
      `import { ErrorEnvelope, Iam, type ErrorEnvelope as Envelope } from "@core/contracts"`,
      `import { AccountRouteRefs, ROUTE_REFS, buildPath } from "@core/contracts/routes"`,
      `const client: CoreClient = createClient({ baseUrl: "http://localhost:8787" })`,
      `export const health: Promise<string> = client.health()`,
      `// @ts-expect-error health() resolves to a string, so the types are real and not any`,
      `export const wrong: Promise<number> = client.health()`,
      `export const session = client.call(AccountRouteRefs.getSession, {})`,
      `export const report: Promise<Iam.IdentityHealth> = client.iam.health()`,
      `// @ts-expect-error the report's status is healthy or degraded`,
      `export const badReport: Iam.IdentityHealth = { status: "up", checks: {} }`,
      `export const envelope: Envelope = ErrorEnvelope.parse({ error: { code: "x", message: "y", requestId: "z" } })`,
      `export const code: string = envelope.error.code`,
      `export const path: string = buildPath("/api/v1/platforms/:platformId", { platformId: "plt_1" })`,
      `export const refs: number = Object.keys(ROUTE_REFS).length`,
      `export const isError = (error: unknown): boolean => error instanceof CoreApiError && error.status === 404`
    ].join("\n"))
    const checked = await run(tsc, ["-p", "tsconfig.json"], dir, userEnv(), 880_000)
    expect(checked, checked.stdout).toMatchObject({ code: 0, stdout: "" })
  }, 900_000)

  // Concurrent with the type checks: mostly waiting on processes, while tsc keeps the cores busy.
  it.concurrent("runs the core CLI with npx from the packed tarball", async () => {
    const version = await run("npx", ["--no-install", "core", "--version"], project)
    expect({ ...version, stderr: withoutNpmWarnings(version.stderr) }).toEqual({ code: 0, stdout: "0.1.0\n", stderr: "" })
    const help = await run("npx", ["--no-install", "core", "--help"], project)
    expect({ ...help, stderr: withoutNpmWarnings(help.stderr) }).toMatchObject({ code: 0, stderr: "" })
    expect(help.stdout).toContain("login")
    expect(help.stdout).toContain("deploy")
  }, 120_000)

  it.concurrent("starts @core/server with npx core-server start, answers /health, the packed SDK reads it, and SIGTERM stops it", async () => {
    const data = join(work, "data")
    // Its own process group (npx, then node running the bin), so that a failed run leaves no server behind.
    const child = spawn("npx", ["--no-install", "core-server", "start"], { cwd: project, env: userEnv({ PORT: "0", CORE_DATA_DIR: data }), stdio: ["ignore", "pipe", "pipe"], detached: true })
    started.push(child)
    const output = { stdout: "", stderr: "" }
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output.stdout += chunk))
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output.stderr += chunk))
    // "close": every holder of the pipes, the server too, has gone.
    const exited = new Promise<void>((resolve) => child.on("close", () => resolve()))
    const port = await eventuallyDefined(() => output.stdout.split("\n").find((line) => line.includes("\"listening\""))?.match(/"port":(\d+)/)?.[1], {
      message: "core-server to listen",
      timeout: 300_000,
      interval: 100,
      abandon: () => (child.exitCode === null ? undefined : `it exited ${child.exitCode}:\n${output.stdout}\n${output.stderr}`)
    })
    const health = await fetch(`http://127.0.0.1:${port}/health`)
    expect({ status: health.status, body: await health.text() }).toEqual({ status: 200, body: "ok" })

    writeFileSync(join(project, "health.mjs"), `import { createClient } from "@core/sdk"\nconsole.log(await createClient({ baseUrl: process.argv[2] }).health())\n`)
    expect(await run(process.execPath, ["health.mjs", `http://127.0.0.1:${port}`], project)).toEqual({ code: 0, stdout: "ok\n", stderr: "" })

    // SIGTERM to the group, as a terminal's Ctrl+C or a supervisor does: npx itself dies of the
    // signal without passing it on, and the server (its child) drains and stops on its own.
    process.kill(-child.pid!, "SIGTERM")
    await exited
    const messages = output.stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => (JSON.parse(line) as { message: string }).message)
    expect(messages.slice(-3), output.stderr).toEqual(["shutting down", "requests drained", "stopped"])
  }, 420_000)
})
