import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { gunzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Tar from "tar-stream"
import * as SourceHostGitHub from "../src/adapters/SourceHostGitHub.js"
import * as StandIn from "./support/githubStandIn.js"

/** The GitHub source host against a local stand-in answering GitHub's documented shapes (decision 0489). */
let github: StandIn.GitHubStandIn
beforeAll(async () => {
  github = await StandIn.start()
  github.addRepo("core-templates/site", { "README.md": "# template\n", "site/about.html": "<p>about</p>" }, { isTemplate: true })
})
afterAll(() => github.close())

const host = (extra: Partial<SourceHostGitHub.GitHubSourceOptions> = {}) =>
  SourceHostGitHub.make({ token: Redacted.make(github.token), baseUrl: github.url, owner: "acme", template: "core-templates/site", ...extra })

const config = { platformId: "plt_1", displayName: "Ada <site>", planTier: "starter", features: {} }

const entriesOf = async (file: string) => {
  const extract = Tar.extract()
  const names: Record<string, string> = {}
  const done = (async () => {
    for await (const entry of extract) {
      const chunks: Array<Buffer> = []
      for await (const chunk of entry) chunks.push(chunk as Buffer)
      names[entry.header.name] = Buffer.concat(chunks).toString("utf8")
    }
  })()
  extract.end(gunzipSync(await Fs.readFile(file)))
  await done
  return names
}

describe("SourceHostGitHub", () => {
  it.effect("creates from the template (created), then answers the existing repository (exists) with the same name", () =>
    Effect.gen(function*() {
      const made = yield* host().create({ platformId: "plt_1", name: "ada", config })
      expect(made).toEqual({ repoFullName: "acme/ada", defaultBranch: "main", cloneUrl: `${github.url}/acme/ada.git`, created: true })
      const generate = github.requests.find((r) => r.method === "POST")
      expect(generate).toEqual({ method: "POST", path: "/repos/core-templates/site/generate" })
      const repo = github.repos.get("acme/ada")!
      expect(JSON.parse(repo.files.get("core.json")!.toString())).toEqual(config)
      expect(repo.files.get("site/index.html")!.toString()).toContain("<h1>Ada site</h1>")
      expect(repo.files.get("site/about.html")!.toString()).toBe("<p>about</p>")
      expect(repo.commits.map((c) => c.message)).toEqual(["Initial commit", "Create the platform's repository", "Add the site's placeholder page"])

      const again = yield* host().create({ platformId: "plt_1", name: "ada", config: { ...config, displayName: "Other" } })
      expect(again).toEqual({ ...made, created: false })
      // The existing repository keeps its own configuration: no new commit.
      expect(repo.commits).toHaveLength(3)
      expect(JSON.parse(repo.files.get("core.json")!.toString()).displayName).toBe("Ada <site>")
    }))

  it.effect("records a configuration change as one commit through the contents API (base64, sha); an unchanged one makes none", () =>
    Effect.gen(function*() {
      const made = yield* host().create({ platformId: "plt_2", name: "bea", config })
      yield* host().updateConfig(made, (c) => ({ ...c, features: { blog: { version: "1.0.0", config: {} } } }), "Activate blog@1.0.0")
      const repo = github.repos.get("acme/bea")!
      expect(JSON.parse(repo.files.get("core.json")!.toString()).features).toEqual({ blog: { version: "1.0.0", config: {} } })
      expect(repo.commits.at(-1)).toEqual({ message: "Activate blog@1.0.0", path: "core.json" })
      const count = repo.commits.length
      yield* host().updateConfig(made, (c) => c, "Nothing")
      expect(repo.commits).toHaveLength(count)
      const puts = github.requests.filter((r) => r.method === "PUT" && r.path === "/repos/acme/bea/contents/core.json")
      expect(puts).toHaveLength(2)
    }))

  it.effect("archives the branch's site/ at the root of a gzip tarball (GitHub's tarball, redirected)", () =>
    Effect.gen(function*() {
      const made = yield* host().create({ platformId: "plt_3", name: "cy", config })
      const dir = yield* Effect.promise(() => Fs.mkdtemp(Path.join(Os.tmpdir(), "gh-archive-")))
      const file = Path.join(dir, "site.tar.gz")
      yield* host().archive(made, "main", file)
      const entries = yield* Effect.promise(() => entriesOf(file))
      expect(Object.keys(entries).sort()).toEqual(["about.html", "index.html"])
      expect(entries["about.html"]).toBe("<p>about</p>")
      const missing = yield* Effect.flip(host().archive(made, "nope", Path.join(dir, "x.tar.gz")))
      expect(missing.message).toContain("failed (404)")
      yield* Effect.promise(() => Fs.rm(dir, { recursive: true, force: true }))
    }))

  it.effect("without a template: POST /orgs/{owner}/repos (auto_init), or /user/repos without an owner", () =>
    Effect.gen(function*() {
      const org = yield* host({ template: undefined }).create({ platformId: "plt_4", name: "dee", config })
      expect(org).toMatchObject({ repoFullName: "acme/dee", created: true })
      expect(github.requests).toContainEqual({ method: "POST", path: "/orgs/acme/repos" })
      const mine = yield* host({ template: undefined, owner: undefined }).create({ platformId: "plt_5", name: "eve", config })
      expect(mine).toMatchObject({ repoFullName: `${github.user}/eve`, created: true })
      // The name exists: found through the token's user.
      const again = yield* host({ template: undefined, owner: undefined }).create({ platformId: "plt_5", name: "eve", config })
      expect(again).toMatchObject({ repoFullName: `${github.user}/eve`, created: false })
      expect(github.requests).toContainEqual({ method: "GET", path: "/user" })
    }))

  // it.live: the waits are real (the test clock would never pass them).
  it.live("waits out a secondary rate limit (retry-after), a primary one (x-ratelimit-reset) and a 429", () =>
    Effect.gen(function*() {
      for (const kind of ["secondary", "primary", "429"] as const) {
        github.limitNext(1, kind)
        const made = yield* host().create({ platformId: "plt_6", name: `rl-${kind}`, config })
        expect(made.created).toBe(true)
      }
      github.limitNext(2, "secondary")
      const failed = yield* Effect.flip(host({ rateLimitRetries: 1 }).create({ platformId: "plt_6", name: "rl-fail", config }))
      expect(failed).toMatchObject({ _tag: "UpstreamUnavailable", upstream: "github" })
      expect(failed.message).toContain("GitHub rate limit on POST /repos/core-templates/site/generate")
      github.limitNext(1, "secondary")
      const tooLong = yield* Effect.flip(host({ maxRetryAfter: "10 millis" }).create({ platformId: "plt_6", name: "rl-long", config }))
      expect(tooLong.message).toContain("wait 1 s")
    }), { timeout: 20_000 })

  it.effect("a refused token (401), a missing template (404): UpstreamUnavailable naming the cause, never the token", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(SourceHostGitHub.make({ token: Redacted.make("ghp_wrong_token"), baseUrl: github.url, owner: "acme" })
        .create({ platformId: "plt_7", name: "fay", config }))
      expect(refused).toMatchObject({ _tag: "UpstreamUnavailable", upstream: "github" })
      expect(refused.message).toContain("GitHub refused the token (GITHUB_TOKEN)")
      expect(refused.message).toContain("Bad credentials")
      expect(refused.message).not.toContain("ghp_wrong_token")
      const template = yield* Effect.flip(host({ template: "core-templates/absent" }).create({ platformId: "plt_7", name: "fay", config }))
      expect(template.message).toContain("the template repository core-templates/absent was not found")
      const unreachable = yield* Effect.flip(host({ baseUrl: "http://127.0.0.1:9" }).create({ platformId: "plt_7", name: "fay", config }))
      expect(unreachable.message).toContain("GitHub unreachable")
    }))
})
