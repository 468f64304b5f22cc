/**
 * The deploy upload benchmark, one run:
 *
 *   node --conditions=source --import tsx bench/deploy-upload.ts
 *
 * 1. A 50 MiB site tarball (incompressible files) posted through the gateway of the real
 *    all-in-one server (`core-server start`, PGlite) to `POST /api/v1/cli/platforms/{id}/deploy`,
 *    against the same bytes posted to a bare `node:http` server that streams them to disk: the
 *    gateway must reach at least 0.5× of its throughput.
 * 2. The server's resident memory (VmRSS, sampled every 20 ms) while the upload streams: it must
 *    grow by less than 64 MiB.
 * 3. A 2,000-file site deployed, one file changed, deployed again the way `core deploy` does it
 *    (hashes, `deploy/missing`, only what is missing plus a manifest): the second upload must be
 *    under 5 % of the first's bytes.
 */
import { randomBytes } from "node:crypto"
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pipeline } from "node:stream/promises"
import { createClient } from "@core/sdk"
import { packDirectory as packSite, scanDirectory as scanSite } from "@core/sdk"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { type Figures, median } from "./Figures.js"

const MiB = 1024 * 1024

/** POST a file to `url` as a stream; the seconds it took and the answer's status and body. */
const post = (url: string, file: string, headers: Record<string, string>) =>
  new Promise<{ seconds: number; status: number; body: string }>((resolve, reject) => {
    const started = process.hrtime.bigint()
    // A fresh connection each time (`agent: false`): a kept-alive one may be closed by the server's idle timeout as it is reused.
    const request = Http.request(url, { method: "POST", agent: false, headers: { ...headers, "content-length": String(statSync(file).size) } }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => resolve({
        seconds: Number(process.hrtime.bigint() - started) / 1e9,
        status: response.statusCode ?? 0,
        body: Buffer.concat(chunks).toString("utf8")
      }))
    })
    request.on("error", (error) => reject(new Error(`POST ${url}: ${error.message}`)))
    createReadStream(file).pipe(request)
  })

/** A bare `node:http` server that streams each body to a file in `dir`. */
const bareServer = async (dir: string) => {
  let n = 0
  const server = Http.createServer((request, response) => {
    pipeline(request, createWriteStream(join(dir, `upload-${n++}`))).then(
      () => response.end("{}"),
      () => response.destroy()
    )
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => new Promise((resolve) => server.close(resolve)) }
}

const serverBin = fileURLToPath(new URL("../packages/server/bin/core-server.mjs", import.meta.url))

/** `core-server start` on its own data directory; its base URL once healthy. */
const startServer = async (dataDir: string) => {
  const env: Record<string, string> = { NODE_ENV: "development", PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PORT: "0", CORE_DATA_DIR: dataDir }
  // `BENCH_CPU_PROF=<dir>`: the server writes its CPU profile there when it stops.
  const profile = process.env.BENCH_CPU_PROF === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
  const child = spawn(process.execPath, [...profile, serverBin, "start"], { env, stdio: ["ignore", "pipe", "pipe"] })
  let stdout = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => process.env.BENCH_DEBUG && process.stderr.write(chunk))
  child.stdout.on("data", (chunk: string) => process.env.BENCH_DEBUG && process.stderr.write(chunk.slice(0, 400)))
  const deadline = Date.now() + 120_000
  while (Date.now() < deadline) {
    const port = /"message":"listening"[^\n]*"port":(\d+)/.exec(stdout)?.[1] ?? /"port":(\d+)[^\n]*"message":"listening"/.exec(stdout)?.[1]
    if (port !== undefined && (await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined))?.ok === true) {
      return { child, base: `http://127.0.0.1:${port}` }
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  child.kill("SIGKILL")
  throw new Error(`core-server did not become healthy:\n${stdout}`)
}

/** A user with an organization (and so a platform), signed up through the gateway. */
const tenantOf = async (base: string, slug: string) => {
  const { token } = await createClient({ baseUrl: base }).iam.signUp({ name: "Bench", email: `${slug}@example.com`, password: "correct horse battery" })
  const setup = await fetch(`${base}/api/v1/iam/api/core/org-setup`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: `core.session_token=${token}` },
    body: JSON.stringify({ name: "Bench", slug })
  })
  const { orgId, platformId } = await setup.json() as { orgId: string; platformId: string }
  await createClient({ baseUrl: base, token }).iam.organizations.setActive({ organizationId: orgId })
  return { token, platformId }
}

const rssOf = (pid: number): number => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return match === null ? 0 : Number(match[1]) * 1024
}

export const run = async (): Promise<Figures> => {
  const work = mkdtempSync(join(tmpdir(), "core-bench-deploy-"))
  const server = await startServer(join(work, "data"))
  try {
    const base = server.base
    const ada = await tenantOf(base, "bench-deploy")
    const client = createClient({ baseUrl: base, token: ada.token })

    // 1 and 2: a 50 MiB tarball of incompressible files.
    const big = join(work, "big")
    mkdirSync(big)
    for (let i = 0; i < 50; i++) writeFileSync(join(big, `blob-${i}.bin`), randomBytes(MiB))
    const tarball = join(work, "big.tar.gz")
    writeFileSync(tarball, await packSite(await scanSite(big), []))
    const bytes = statSync(tarball).size

    const bare = await bareServer(mkdtempSync(join(work, "bare-")))
    await post(bare.url, tarball, { "content-type": "application/gzip" })

    const url = `${base}/api/v1/cli/platforms/${ada.platformId}/deploy`
    const headers = { "content-type": "application/gzip", authorization: `Bearer ${ada.token}` }
    const finished = async (deploymentId: string) => {
      for (let i = 0; i < 1200; i++) {
        const record = await client.deploy.deployments.get(ada.platformId, deploymentId)
        if (record.status === "success") return
        if (record.status === "failure") throw new Error(`The deployment failed: ${record.errorMessage}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    const warm = await post(url, tarball, headers)
    if (warm.status !== 202) throw new Error(`The warm-up upload answered ${warm.status}: ${warm.body}`)
    // The warm-up's deployment job (unpacking 50 MiB) ends before the measured uploads start.
    await finished(JSON.parse(warm.body).deploymentId)

    // Three rounds, bare and gateway interleaved (a shared machine is noisy): medians are reported.
    const pid = server.child.pid!
    const before = rssOf(pid)
    let peak = before
    const bareTimes: Array<number> = []
    const gatewayTimes: Array<number> = []
    // The measured uploads' spans (µs, the profiler's monotonic clock), for `BENCH_CPU_PROF`.
    const windows: Array<[number, number]> = []
    for (let round = 0; round < 3; round++) {
      bareTimes.push((await post(bare.url, tarball, { "content-type": "application/gzip" })).seconds)
      // Fresh bytes each round, so that nothing is deduplicated by the content store.
      for (let i = 0; i < 50; i++) writeFileSync(join(big, `blob-${i}.bin`), randomBytes(MiB))
      writeFileSync(tarball, await packSite(await scanSite(big), []))
      const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20)
      const from = process.hrtime.bigint()
      const gateway = await post(url, tarball, headers)
      clearInterval(sampler)
      windows.push([Number(from / 1000n), Number(process.hrtime.bigint() / 1000n)])
      if (gateway.status !== 202) throw new Error(`The upload answered ${gateway.status}: ${gateway.body}`)
      gatewayTimes.push(gateway.seconds)
      await finished(JSON.parse(gateway.body).deploymentId)
    }
    await bare.close()
    if (process.env.BENCH_CPU_PROF !== undefined) writeFileSync(join(process.env.BENCH_CPU_PROF, "uploads.json"), JSON.stringify(windows))
    const bareRun = { seconds: median(bareTimes) }
    const gateway = { seconds: median(gatewayTimes) }
    const bareRate = bytes / MiB / bareRun.seconds
    const gatewayRate = bytes / MiB / gateway.seconds
    const growth = (peak - before) / MiB

    // 3: a 2,000-file site, then one file changed.
    const site = join(work, "site")
    for (let i = 0; i < 2000; i++) {
      const dir = join(site, `d${i % 40}`)
      mkdirSync(dir, { recursive: true })
      writeFileSync(join(dir, `page-${i}.html`), `<p>${randomBytes(1536).toString("base64")}</p>`)
    }
    const deployOnce = async () => {
      const files = await scanSite(site)
      const { missing } = await client.deploy.missing(ada.platformId, [...new Set(files.map((file) => file.hash))])
      const lacking = new Set(missing)
      const archive = await packSite(files.filter((file) => lacking.has(file.hash)), files.filter((file) => !lacking.has(file.hash)))
      const accepted = await client.deploy.upload(ada.platformId, archive)
      await finished(accepted.deploymentId)
      return archive.byteLength
    }
    const first = await deployOnce()
    writeFileSync(join(site, "d7", "page-7.html"), "<p>changed</p>")
    const second = await deployOnce()
    const share = (second / first) * 100

    return {
      title: "Deploy uploads: 50 MiB through the gateway vs bare node:http to disk; memory; an incremental redeploy",
      columns: ["measure", "value"],
      rows: [
        ["tarball (MiB)", (bytes / MiB).toFixed(1)],
        ["bare node:http → disk (MiB/s, median of 3)", bareRate.toFixed(1)],
        ["gateway → deploy upload (MiB/s, median of 3)", gatewayRate.toFixed(1)],
        ["ratio gateway / bare", (gatewayRate / bareRate).toFixed(2)],
        ["server RSS growth during the upload (MiB)", growth.toFixed(1)],
        ["2,000-file site: first upload (KiB)", (first / 1024).toFixed(1)],
        ["after one change: second upload (KiB)", (second / 1024).toFixed(1)],
        ["second / first (%)", share.toFixed(2)]
      ],
      checks: [
        `throughput ratio ${(gatewayRate / bareRate).toFixed(2)} ${gatewayRate / bareRate >= 0.5 ? ">=" : "< (FAILS)"} 0.5`,
        `RSS growth ${growth.toFixed(1)} MiB ${growth < 64 ? "<" : ">= (FAILS)"} 64 MiB`,
        `redeploy ${share.toFixed(2)} % ${share < 5 ? "<" : ">= (FAILS)"} 5 % of the first deploy's bytes`
      ]
    }
  } finally {
    server.child.kill("SIGTERM")
    await new Promise((resolve) => server.child.once("exit", resolve))
    rmSync(work, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { render } = await import("./Figures.js")
  console.log(render(await run()))
}
