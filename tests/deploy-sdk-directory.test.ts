import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gunzipSync } from "node:zlib"
import { TestDatabase } from "@core/kernel/testing"
import * as Tar from "tar-stream"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { packForUpload, scanDirectory } from "../packages/sdk/src/resources/deploy-directory.js"
import { useServer } from "../packages/server/test/ServerProcess.js"
import { call, type Tenant, tenantOf, until } from "./support/tenants.js"
import { site } from "./support/sites.js"

/**
 * `client.deploy.upload(platformId, "<directory>")` in Node (decision 0491): the SDK hashes
 * the directory, asks which hashes the server lacks and uploads only those with a manifest of the
 * rest — through the real server's gateway; and where there is no file system, a clear error.
 */
const SLOW = 180_000

const entriesOf = async (archive: Uint8Array) => {
  const extract = Tar.extract()
  const found: Record<string, string> = {}
  const done = (async () => {
    for await (const entry of extract) {
      const chunks: Array<Buffer> = []
      for await (const chunk of entry) chunks.push(chunk as Buffer)
      found[entry.header.name] = Buffer.concat(chunks).toString("utf8")
    }
  })()
  extract.end(gunzipSync(archive))
  await done
  return found
}


const dir = mkdtempSync(join(tmpdir(), "core-sdk-site-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
mkdirSync(join(dir, "assets"))
mkdirSync(join(dir, ".git"))
writeFileSync(join(dir, "index.html"), "<h1>from the sdk</h1>")
writeFileSync(join(dir, "assets", "app.js"), "console.log(1)")
writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/main")

describe("the SDK's directory packing", () => {
  it("hashes every regular file (.git left out) and packs only what the server lacks, with a manifest of the rest", async () => {
    const files = await scanDirectory(dir)
    expect(files.map((file) => file.path)).toEqual(["assets/app.js", "index.html"])
    const appHash = files[0]!.hash
    expect(appHash).toMatch(/^[0-9a-f]{64}$/)
    const asked: Array<ReadonlyArray<string>> = []
    const packed = await packForUpload(dir, async (hashes) => (asked.push(hashes), [appHash]))
    expect(asked[0]!.length).toBe(2)
    expect(packed).toMatchObject({ files: 2, sent: 1, kept: 1 })
    expect(await entriesOf(packed.archive)).toEqual({
      "assets/app.js": "console.log(1)",
      ".core-manifest.json": JSON.stringify({ files: { "index.html": files[1]!.hash } })
    })
    const unchanged = await packForUpload(dir, async () => [])
    expect(Object.keys(await entriesOf(unchanged.archive))).toEqual([".core-manifest.json"])
  })

  it("where there is no file system (a browser, an edge worker), a directory path is a clear TypeError", async () => {
    const runtime = globalThis.process as unknown as { getBuiltinModule?: unknown }
    const saved = runtime.getBuiltinModule
    runtime.getBuiltinModule = undefined
    try {
      await expect(scanDirectory(dir)).rejects.toThrow(/a directory path needs Node 20.16 or later/)
    } finally {
      runtime.getBuiltinModule = saved
    }
  })
})

for (const driver of TestDatabase.drivers) {
  describe(`client.deploy.upload(platformId, directory) through the gateway on ${driver}`, () => {
    const server = useServer({}, SLOW, { driver })
    let ada: Tenant
    const slug = `ada-sdk-${driver}`
    beforeAll(async () => {
      ada = await tenantOf(server.base, "Ada", slug)
      await ada.client.deploy.createRepo({ platformId: ada.platformId, displayName: "Ada", planTier: "starter" })
    }, SLOW)

    it("deploys the directory; an unchanged redeploy sends no file and serves the same site", async () => {
      const finished = (deploymentId: string) =>
        until(() => call(server.base, "GET", `/api/v1/cli/platforms/${ada.platformId}/deployments/${deploymentId}`, ada.bearer),
          (r) => r.body?.status === "success" || r.body?.status === "failure", 20_000)
      const first = await ada.client.deploy.upload(ada.platformId, dir)
      expect(first).toMatchObject({ deploymentId: expect.stringMatching(/^dep_/), status: "queued", projectName: slug })
      expect((await finished(first.deploymentId)).body.status).toBe("success")
      expect(await site(server.base, `${slug}.localhost`)).toEqual({ status: 200, text: "<h1>from the sdk</h1>" })
      expect((await site(server.base, `${slug}.localhost`, "/assets/app.js")).text).toBe("console.log(1)")
      expect((await ada.client.deploy.missing(ada.platformId, (await scanDirectory(dir)).map((file) => file.hash))).missing).toEqual([])
      const preview = await ada.client.deploy.upload(ada.platformId, dir, { branch: "pr-7" })
      expect((await finished(preview.deploymentId)).body).toMatchObject({ status: "success", branch: "pr-7" })
      expect((await site(server.base, `pr-7.${slug}.localhost`)).text).toBe("<h1>from the sdk</h1>")
    }, SLOW)
  })
}
