import { execFileSync } from "node:child_process"
import * as Http from "node:http"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { TestDatabase } from "@core/kernel/testing"
import { Crypto } from "@core/kernel"
import { LocalEdge } from "@core/provisioning"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { useServer } from "../packages/server/test/ServerProcess.js"
import { tarball } from "./support/tarballs.js"
import { call, type Tenant, tenantOf, until } from "./support/tenants.js"

/**
 * The command-line backend through the gateway of the real all-in-one server: the
 * source repository, uploads and their deployments served at `<project>.localhost` and previews at
 * `<branch>.<project>.localhost`, rollbacks, paging, idempotency, archive safety, secrets,
 * features, and another tenant's 404 — on PGlite and PostgreSQL.
 */
const SLOW = 180_000
const SECRET = "deploy-gateway-test-secret-0123456789abcdef"

const upload = async (base: string, platformId: string, headers: Record<string, string>, body: Buffer | string, type = "application/gzip") => {
  const response = await fetch(`${base}/api/v1/cli/platforms/${platformId}/deploy`, {
    method: "POST",
    headers: { "content-type": type, ...headers },
    body: typeof body === "string" ? body : new Uint8Array(body)
  })
  const text = await response.text()
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) as any }
}

/** An upload sent chunked (no `Content-Length`), 16 KiB at a time. */
const chunked = (base: string, platformId: string, headers: Record<string, string>, body: Buffer) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = Http.request(`${base}/api/v1/cli/platforms/${platformId}/deploy`, {
      method: "POST", headers: { "content-type": "application/gzip", ...headers }
    }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }))
    })
    request.on("error", reject)
    const send = (offset: number): void => {
      if (offset >= body.length) return void request.end()
      // A write after the answer came is dropped: the server stopped reading and discards the rest.
      if (request.destroyed) return
      request.write(body.subarray(offset, offset + 16 * 1024), () => send(offset + 16 * 1024))
    }
    send(0)
  })

/** A request to the server with another `Host` (the site's `.localhost` name); fetch would not send it. */
const site = (base: string, host: string, path = "/") =>
  new Promise<{ status: number; type: string | undefined; cache: string | undefined; text: string }>((resolve, reject) => {
    const port = Number(new URL(base).port)
    const request = Http.request({ host: "127.0.0.1", port, path, headers: { host: `${host}:${port}` } }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => resolve({
        status: response.statusCode ?? 0,
        type: response.headers["content-type"],
        cache: response.headers["cache-control"],
        text: Buffer.concat(chunks).toString("utf8")
      }))
    })
    request.on("error", reject)
    request.end()
  })

for (const driver of TestDatabase.drivers) {
  describe(`the command-line backend through the gateway on ${driver}`, () => {
    // The data directory is the test's, so that what an upload leaves under deploy/uploads can be seen.
    const dataDir = mkdtempSync(join(tmpdir(), `core-deploy-data-${driver}-`))
    const uploads = join(dataDir, "deploy", "uploads")
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }))
    const server = useServer({
      CORE_DATA_DIR: dataDir,
      CORE_SECRET: SECRET,
      CORE_DEPLOY_MAX_UNPACKED_BYTES: String(512 * 1024),
      CORE_DEPLOY_MAX_FILES: "50",
      CORE_DEPLOY_MAX_UPLOAD_BYTES: String(256 * 1024)
    }, SLOW, { driver })
    let ada: Tenant
    let bob: Tenant
    let slug: string
    const finished = (deploymentId: string) =>
      until(() => call(server.base, "GET", `/api/v1/cli/platforms/${ada.platformId}/deployments/${deploymentId}`, ada.bearer),
        (r) => r.body?.status === "success" || r.body?.status === "failure", 20_000)

    beforeAll(async () => {
      slug = `ada-deploy-${driver}`
      ada = await tenantOf(server.base, "Ada", slug)
      bob = await tenantOf(server.base, "Bob", `bob-deploy-${driver}`)
    }, SLOW)

    it("POST /platforms creates the repository, then answers exists; git clone holds core.json; Bob 404", async () => {
      const body = { platformId: ada.platformId, displayName: "Ada's site", planTier: "starter" }
      const created = await call(server.base, "POST", "/api/v1/cli/platforms", ada.bearer, body)
      expect(created).toMatchObject({ status: 200, body: { platformId: ada.platformId, repoFullName: `local/${slug}`, status: "created" } })
      const again = await call(server.base, "POST", "/api/v1/cli/platforms", ada.bearer, body)
      expect(again.body).toEqual({ ...created.body, status: "exists" })
      const repo = await call(server.base, "GET", `/api/v1/cli/platforms/${ada.platformId}/repo`, ada.bearer)
      expect(repo.body).toMatchObject({ platformId: ada.platformId, repoFullName: `local/${slug}`, defaultBranch: "main", edgePagesProjectName: slug })
      const dir = mkdtempSync(join(tmpdir(), "core-clone-"))
      try {
        execFileSync("git", ["clone", "--quiet", repo.body.cloneUrl, dir])
        expect(JSON.parse(readFileSync(join(dir, "core.json"), "utf8"))).toMatchObject({ platformId: ada.platformId, displayName: "Ada's site", planTier: "starter" })
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
      for (const [method, path, payload] of [
        ["POST", "/api/v1/cli/platforms", body],
        ["GET", `/api/v1/cli/platforms/${ada.platformId}/repo`, undefined],
        ["GET", `/api/v1/cli/platforms/${ada.platformId}/build-status`, undefined],
        ["GET", `/api/v1/cli/platforms/${ada.platformId}/deployments`, undefined],
        ["GET", `/api/v1/cli/platforms/${ada.platformId}/secrets`, undefined],
        ["POST", `/api/v1/cli/platforms/${ada.platformId}/secrets`, { secrets: { A: "b" } }]
      ] as const) {
        const refused = await call(server.base, method, path, bob.bearer, payload)
        expect(refused.status, `${method} ${path}`).toBe(404)
        expect(refused.body.error.code).toBe("NOT_FOUND")
      }
      expect((await upload(server.base, ada.platformId, bob.bearer, await tarball([{ name: "index.html", content: "x" }]))).status).toBe(404)
    }, SLOW)

    it("an upload deploys: queued → success with its URL; served at <project>.localhost with types, index.html, 404.html, immutable hashed assets", async () => {
      const body = await tarball([
        { name: "index.html", content: "<h1>v1</h1>" },
        { name: "404.html", content: "<h1>missing</h1>" },
        { name: "docs/", type: "directory" },
        { name: "docs/index.html", content: "<p>docs</p>" },
        { name: "assets/app.3f2a9c1b.js", content: "console.log(1)" },
        { name: "style.css", content: "body{}" }
      ])
      const accepted = await upload(server.base, ada.platformId, ada.bearer, body)
      expect(accepted).toMatchObject({ status: 202, body: { deploymentId: expect.stringMatching(/^dep_/), status: "queued", projectName: slug } })
      const done = await finished(accepted.body.deploymentId)
      expect(done.body).toMatchObject({
        deploymentId: accepted.body.deploymentId, status: "success", branch: "main", environment: "production", live: true,
        url: expect.stringMatching(new RegExp(`^http://${slug}\\.localhost:\\d+/$`)), edgeDeploymentId: expect.any(String),
        errorMessage: null, startedAt: expect.any(Number), completedAt: expect.any(Number)
      })
      expect(await site(server.base, `${slug}.localhost`)).toMatchObject({ status: 200, type: "text/html; charset=utf-8", text: "<h1>v1</h1>", cache: "no-cache" })
      expect(await site(server.base, `${slug}.localhost`, "/docs/")).toMatchObject({ status: 200, text: "<p>docs</p>" })
      expect(await site(server.base, `${slug}.localhost`, "/style.css")).toMatchObject({ status: 200, type: "text/css; charset=utf-8" })
      expect(await site(server.base, `${slug}.localhost`, "/assets/app.3f2a9c1b.js")).toMatchObject({
        status: 200, type: "text/javascript; charset=utf-8", cache: "public, max-age=31536000, immutable"
      })
      expect(await site(server.base, `${slug}.localhost`, "/nope")).toMatchObject({ status: 404, text: "<h1>missing</h1>" })
      const status = await call(server.base, "GET", `/api/v1/cli/platforms/${ada.platformId}/build-status`, ada.bearer)
      expect(status.body).toEqual({
        platformId: ada.platformId, edgePagesProjectName: slug,
        latestDeployment: { id: accepted.body.deploymentId, status: "success", url: done.body.url, createdOn: expect.any(String) }
      })
    }, SLOW)

    it("a preview beside production, then a rollback makes the first deployment live again at once; the list pages newest first", async () => {
      const preview = await upload(server.base, ada.platformId, { ...ada.bearer, "x-core-deploy-branch": "feature-x" }, await tarball([{ name: "index.html", content: "<h1>preview</h1>" }]))
      expect(preview.status).toBe(202)
      const previewDone = await finished(preview.body.deploymentId)
      expect(previewDone.body).toMatchObject({ status: "success", branch: "feature-x", environment: "preview", url: expect.stringMatching(new RegExp(`^http://feature-x\\.${slug}\\.localhost:\\d+/$`)) })
      expect((await site(server.base, `feature-x.${slug}.localhost`)).text).toBe("<h1>preview</h1>")
      expect((await site(server.base, `${slug}.localhost`)).text).toBe("<h1>v1</h1>")

      const list = await call(server.base, "GET", `/api/v1/cli/platforms/${ada.platformId}/deployments?limit=1`, ada.bearer)
      expect(list.body).toMatchObject({ data: [{ deploymentId: preview.body.deploymentId }], hasMore: true, nextCursor: expect.any(String) })
      const next = await call(server.base, "GET", `/api/v1/cli/platforms/${ada.platformId}/deployments?limit=1&cursor=${list.body.nextCursor}`, ada.bearer)
      const first = next.body.data[0].deploymentId

      const second = await upload(server.base, ada.platformId, ada.bearer, await tarball([{ name: "index.html", content: "<h1>v2</h1>" }]))
      await finished(second.body.deploymentId)
      expect((await site(server.base, `${slug}.localhost`)).text).toBe("<h1>v2</h1>")
      const rolled = await call(server.base, "POST", `/api/v1/cli/platforms/${ada.platformId}/deployments/${first}/rollback`, ada.bearer)
      expect(rolled).toMatchObject({ status: 200, body: { deploymentId: first, status: "success", live: true } })
      expect((await site(server.base, `${slug}.localhost`)).text).toBe("<h1>v1</h1>")
      expect((await site(server.base, `feature-x.${slug}.localhost`)).text).toBe("<h1>preview</h1>")
      const all = await call(server.base, "GET", `/api/v1/cli/platforms/${ada.platformId}/deployments`, ada.bearer)
      expect(all.body.data.map((d: { deploymentId: string }) => d.deploymentId).slice(0, 3)).toEqual([second.body.deploymentId, preview.body.deploymentId, first])
      expect(all.body.data.find((d: { deploymentId: string }) => d.deploymentId === second.body.deploymentId).live).toBe(false)
      const unknown = await call(server.base, "POST", `/api/v1/cli/platforms/${ada.platformId}/deployments/dep_00000000000000000000000000/rollback`, ada.bearer)
      expect(unknown.status).toBe(404)
      expect((await call(server.base, "GET", `/api/v1/cli/platforms/${bob.platformId}/deployments/${first}`, bob.bearer)).status).toBe(404)
    }, SLOW)

    it("an incremental upload: deploy/missing names what the server lacks; a manifest names the rest", async () => {
      const { createHash } = await import("node:crypto")
      const sha = (text: string) => createHash("sha256").update(text).digest("hex")
      const known = sha("<h1>v1</h1>")
      const fresh = sha("fresh content")
      const missing = await call(server.base, "POST", `/api/v1/cli/platforms/${ada.platformId}/deploy/missing`, ada.bearer, { hashes: [known, fresh] })
      expect(missing).toMatchObject({ status: 200, body: { missing: [fresh] } })
      const body = await tarball([
        { name: "new.txt", content: "fresh content" },
        { name: ".core-manifest.json", content: JSON.stringify({ files: { "index.html": known } }) }
      ])
      const accepted = await upload(server.base, ada.platformId, ada.bearer, body)
      expect(accepted.status).toBe(202)
      expect((await finished(accepted.body.deploymentId)).body.status).toBe("success")
      expect((await site(server.base, `${slug}.localhost`)).text).toBe("<h1>v1</h1>")
      expect((await site(server.base, `${slug}.localhost`, "/new.txt")).text).toBe("fresh content")
      const unknown = await upload(server.base, ada.platformId, ada.bearer, await tarball([{ name: ".core-manifest.json", content: JSON.stringify({ files: { "a.txt": "0".repeat(64) } }) }]))
      expect(unknown.status).toBe(400)
      expect(unknown.body.error.details.issues[0].path).toBe("a.txt")
      const bad = await call(server.base, "POST", `/api/v1/cli/platforms/${ada.platformId}/deploy/missing`, ada.bearer, { hashes: ["nope"] })
      expect(bad.status).toBe(400)
    }, SLOW)

    it("an idempotency key answers the first deployment for the same bytes and 409 for other bytes", async () => {
      const body = await tarball([{ name: "index.html", content: "<h1>keyed</h1>" }])
      const headers = { ...ada.bearer, "idempotency-key": `deploy-key-${driver}` }
      const first = await upload(server.base, ada.platformId, headers, body)
      const again = await upload(server.base, ada.platformId, headers, body)
      expect(again.body.deploymentId).toBe(first.body.deploymentId)
      const other = await upload(server.base, ada.platformId, headers, await tarball([{ name: "index.html", content: "<h1>other</h1>" }]))
      expect(other.status).toBe(409)
      expect(other.body.error.code).toBe("CONFLICT")
      await finished(first.body.deploymentId)
    }, SLOW)

    it("archive safety: traversal, absolute paths, links, devices, too many files, a gzip bomb, non-gzip, empty, wrong type: 4xx naming the entry, nothing deployed", async () => {
      const before = (await call(server.base, "GET", `/api/v1/cli/platforms/${ada.platformId}/deployments?limit=100`, ada.bearer)).body.data.length
      const cases: Array<[string, Buffer, string]> = [
        ["traversal", await tarball([{ name: "ok.txt", content: "x" }, { name: "../escape.txt", content: "x" }]), "../escape.txt"],
        ["nested traversal", await tarball([{ name: "a/../../escape.txt", content: "x" }]), "a/../../escape.txt"],
        ["absolute", await tarball([{ name: "/etc/passwd", content: "x" }]), "/etc/passwd"],
        ["symlink", await tarball([{ name: "link", type: "symlink", linkname: "/etc/passwd" }]), "link"],
        ["hard link", await tarball([{ name: "a.txt", content: "x" }, { name: "hard", type: "link", linkname: "a.txt" }]), "hard"],
        ["device", await tarball([{ name: "dev", type: "character-device" }]), "dev"],
        ["fifo", await tarball([{ name: "pipe", type: "fifo" }]), "pipe"],
        ["too many files", await tarball(Array.from({ length: 51 }, (_, i) => ({ name: `f${i}.txt`, content: "x" }))), "f50.txt"]
      ]
      for (const [label, body, entry] of cases) {
        const refused = await upload(server.base, ada.platformId, ada.bearer, body)
        expect(refused.status, label).toBe(400)
        expect(refused.body.error.code, label).toBe("VALIDATION_ERROR")
        expect(refused.body.error.message, label).toContain(entry)
        expect(refused.body.error.details.issues[0].path, label).toBe(entry)
      }
      const bomb = gzipSync(Buffer.alloc(1024 * 1024))
      expect(bomb.length).toBeLessThan(1100)
      const stopped = await upload(server.base, ada.platformId, ada.bearer, bomb)
      expect(stopped.status).toBe(400)
      expect(stopped.body.error.message).toContain("inflates past")
      const { randomBytes } = await import("node:crypto")
      const tooLarge = await upload(server.base, ada.platformId, ada.bearer, await tarball([{ name: "big.bin", content: randomBytes(300 * 1024) }]))
      expect(tooLarge.status).toBe(413)
      expect(tooLarge.body.error.code).toBe("PAYLOAD_TOO_LARGE")
      const notGzip = await upload(server.base, ada.platformId, ada.bearer, "plain text")
      expect(notGzip.status).toBe(400)
      expect(notGzip.body.error.message).toContain("not gzip")
      const corrupt = await upload(server.base, ada.platformId, ada.bearer, Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.from("garbage garbage")]))
      expect(corrupt.status).toBe(400)
      const empty = await upload(server.base, ada.platformId, ada.bearer, "")
      expect(empty.status).toBe(400)
      const wrongType = await upload(server.base, ada.platformId, ada.bearer, "{}", "application/json")
      expect(wrongType.status).toBe(415)
      expect(wrongType.body.error.code).toBe("UNSUPPORTED_MEDIA_TYPE")
      const badBranch = await upload(server.base, ada.platformId, { ...ada.bearer, "x-core-deploy-branch": "Bad_Branch" }, await tarball([{ name: "a", content: "b" }]))
      expect(badBranch.status).toBe(400)
      const after = (await call(server.base, "GET", `/api/v1/cli/platforms/${ada.platformId}/deployments?limit=100`, ada.bearer)).body.data.length
      expect(after).toBe(before)
    }, SLOW)

    it("an upload stopped while it streams leaves nothing under deploy/uploads: 413 past the limit without Content-Length, a refused entry, a client that goes away", async () => {
      const before = (await call(server.base, "GET", `/api/v1/cli/platforms/${ada.platformId}/deployments?limit=100`, ada.bearer)).body.data.length
      const { randomBytes } = await import("node:crypto")
      const leftovers = () => existsSync(uploads) ? readdirSync(uploads) : []
      await until(async () => leftovers(), (files) => files.length === 0, 20_000)
      // Chunked (no Content-Length): the limit is only known to be passed while the bytes stream.
      const tooLarge = await chunked(server.base, ada.platformId, ada.bearer, await tarball([{ name: "big.bin", content: randomBytes(400 * 1024) }]))
      expect(tooLarge.status).toBe(413)
      expect(JSON.parse(tooLarge.text).error.code).toBe("PAYLOAD_TOO_LARGE")
      expect(leftovers()).toEqual([])
      const refused = await chunked(server.base, ada.platformId, ada.bearer, await tarball([
        { name: "first.bin", content: randomBytes(100 * 1024) },
        { name: "../escape.txt", content: "x" }
      ]))
      expect(refused.status).toBe(400)
      expect(JSON.parse(refused.text).error.details.issues[0].path).toBe("../escape.txt")
      expect(leftovers()).toEqual([])
      // Half of a valid upload, then the client goes away: the partial file is removed.
      const whole = await tarball([{ name: "half.bin", content: randomBytes(200 * 1024) }])
      await new Promise<void>((resolve) => {
        const request = Http.request(`${server.base}/api/v1/cli/platforms/${ada.platformId}/deploy`, {
          method: "POST", headers: { "content-type": "application/gzip", "content-length": String(whole.length), ...ada.bearer }
        })
        request.on("error", () => resolve())
        request.write(whole.subarray(0, 96 * 1024), () => setTimeout(() => {
          request.destroy()
          resolve()
        }, 300))
      })
      expect(await until(async () => leftovers(), (files) => files.length === 0, 10_000)).toEqual([])
      const after = (await call(server.base, "GET", `/api/v1/cli/platforms/${ada.platformId}/deployments?limit=100`, ada.bearer)).body.data.length
      expect(after).toBe(before)
    }, SLOW)

    it("the no-body form deploys the repository's default branch", async () => {
      const response = await fetch(`${server.base}/api/v1/cli/platforms/${ada.platformId}/deploy`, { method: "POST", headers: ada.bearer })
      const body = await response.json() as any
      expect(response.status).toBe(202)
      expect(body).toMatchObject({ deploymentId: expect.stringMatching(/^dep_/), url: expect.stringContaining(`${slug}.localhost`) })
      expect((await finished(body.deploymentId)).body.status).toBe("success")
      expect((await site(server.base, `${slug}.localhost`)).text).toContain("Ada's site")
    }, SLOW)

    it("tenancy: a read-only API key of the organization reads (status, deployments, secrets) but may not deploy, roll back or set secrets (403)", async () => {
      // The worker's secrets are a resource's secrets: their area's read permissions as well (decision 0596).
      const key = await ada.client.iam.apiKeys.create({ organizationId: ada.orgId, name: "reader", permissions: ["platforms:read", "resources:read", "secrets:read"] })
      const reader = { "x-api-key": key.key }
      const base = `/api/v1/cli/platforms/${ada.platformId}`
      for (const path of ["/build-status", "/deployments", "/repo", "/secrets"]) {
        expect((await call(server.base, "GET", `${base}${path}`, reader)).status, path).toBe(200)
      }
      const deploy = await upload(server.base, ada.platformId, reader, await tarball([{ name: "index.html", content: "x" }]))
      expect(deploy.status).toBe(403)
      expect(deploy.body.error.code).toBe("FORBIDDEN")
      const latest = (await call(server.base, "GET", `${base}/deployments?limit=1`, reader)).body.data[0].deploymentId
      expect((await call(server.base, "POST", `${base}/deployments/${latest}/rollback`, reader)).status).toBe(403)
      expect((await call(server.base, "POST", `${base}/secrets`, reader, { secrets: { A: "b" } })).status).toBe(403)
      expect((await call(server.base, "POST", `${base}/deploy/missing`, reader, { hashes: [] })).status).toBe(403)
    }, SLOW)

    it("secrets: set (ok per name), listed by name and lastSetAt only; a bad name 400", async () => {
      const set = await call(server.base, "POST", `/api/v1/cli/platforms/${ada.platformId}/secrets`, ada.bearer, { secrets: { API_KEY: "s3cret", DB_URL: "postgres://x" } })
      expect(set).toMatchObject({ status: 200, body: { platformId: ada.platformId, results: { API_KEY: "ok", DB_URL: "ok" } } })
      const list = await call(server.base, "GET", `/api/v1/cli/platforms/${ada.platformId}/secrets`, ada.bearer)
      expect(list.body.data.map((s: { name: string }) => s.name).sort()).toEqual(["API_KEY", "DB_URL"])
      expect(JSON.stringify(list.body)).not.toContain("s3cret")
      expect(list.body.data[0].lastSetAt).toBeGreaterThan(0)
      // Set at the local edge too: encrypted on the platform's worker, readable by a runtime (decision 0490).
      const edgeRoot = join(dataDir, "edge")
      expect(readFileSync(join(LocalEdge.workerSecretsDir(edgeRoot, `${slug}-worker`), "API_KEY"), "utf8")).not.toContain("s3cret")
      expect(await LocalEdge.readWorkerSecrets(edgeRoot, `${slug}-worker`, Crypto.deriveKey(SECRET, LocalEdge.WORKER_SECRETS_KEY_PURPOSE)))
        .toEqual({ API_KEY: "s3cret", DB_URL: "postgres://x" })
      expect(server.running.output.stdout).not.toContain("s3cret")
      const bad = await call(server.base, "POST", `/api/v1/cli/platforms/${ada.platformId}/secrets`, ada.bearer, { secrets: { "lower-case": "x" } })
      expect(bad.status).toBe(400)
    }, SLOW)

    it("features: activate (a registry activation and its job, recorded in core.json), then deactivate", async () => {
      const activated = await call(server.base, "POST", `/api/v1/cli/platforms/${ada.platformId}/features/activate`, ada.bearer, { featureId: "search", version: "1.2.0" })
      expect(activated).toMatchObject({ status: 200, body: { status: "activated", featureId: "search", version: "1.2.0", provisionJobId: expect.stringMatching(/^job_/) } })
      const repo = await call(server.base, "GET", `/api/v1/cli/platforms/${ada.platformId}/repo`, ada.bearer)
      const dir = mkdtempSync(join(tmpdir(), "core-clone-"))
      try {
        execFileSync("git", ["clone", "--quiet", repo.body.cloneUrl, dir])
        expect(JSON.parse(readFileSync(join(dir, "core.json"), "utf8")).features).toEqual({ search: { version: "1.2.0", config: {} } })
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
      await until(() => call(server.base, "GET", `/api/v1/provisioning/jobs/${activated.body.provisionJobId}`, ada.bearer), (r) => r.body.status === "COMPLETED")
      const deactivated = await call(server.base, "POST", `/api/v1/cli/platforms/${ada.platformId}/features/deactivate`, ada.bearer, { featureId: "search" })
      expect(deactivated).toMatchObject({ status: 200, body: { status: "deactivated", featureId: "search" } })
      const bad = await call(server.base, "POST", `/api/v1/cli/platforms/${ada.platformId}/features/activate`, ada.bearer, { featureId: "", version: "1" })
      expect(bad.status).toBe(400)
    }, SLOW)
  })
}
