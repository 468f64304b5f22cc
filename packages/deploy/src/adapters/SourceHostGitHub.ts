import { createWriteStream } from "node:fs"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { createGunzip, createGzip } from "node:zlib"
import type { UpstreamUnavailable } from "@core/kernel"
import { Effect, Layer, Option, type Redacted } from "effect"
import * as Tar from "tar-stream"
import { DeployConfig, GITHUB_API_URL } from "../Config.js"
import { messageOf } from "../internal/failures.js"
import { type CreatedRepo, type NewSourceRepo, SourceHost, type SourceRepo } from "../ports/SourceHost.js"
import * as GitHubApi from "./github/GitHubApi.js"

/** The GitHub source host's settings. */
export interface GitHubSourceOptions {
  readonly token: Redacted.Redacted<string>
  /** The organization repositories are made in; unset: the token's user. */
  readonly owner?: string
  /** `owner/repo` of a template repository (`POST /repos/{template}/generate`); unset: an empty repository. */
  readonly template?: string
  /** @default "https://api.github.com" */
  readonly baseUrl?: string
  /** Repositories are private unless this is `false`. @default true */
  readonly private?: boolean
  readonly requestTimeout?: GitHubApi.GitHubApiOptions["requestTimeout"]
  readonly maxRetryAfter?: GitHubApi.GitHubApiOptions["maxRetryAfter"]
  readonly rateLimitRetries?: number
}

const CONFIG_FILE = "core.json"
const PLACEHOLDER = "site/index.html"
/** A write the contents API refused for a stale `sha` (409) or a missing one (422) is made again, this many times. */
const WRITE_ATTEMPTS = 4

const placeholder = (name: string) =>
  `<!doctype html>\n<html><head><meta charset="utf-8"><title>${name.replace(/[<>&"]/g, "")}</title></head>` +
  `<body><h1>${name.replace(/[<>&"]/g, "")}</h1><p>Deployed from the platform's repository by Core.</p></body></html>\n`

interface GitHubRepo {
  readonly full_name: string
  readonly default_branch: string
  readonly clone_url: string
}

const isRepo = (body: any): body is GitHubRepo =>
  typeof body?.full_name === "string" && typeof body?.default_branch === "string" && typeof body?.clone_url === "string"

/**
 * Platforms' repositories on GitHub (DESIGN §7; decision 0489): made from `template` with
 * `POST /repos/{template_owner}/{template_repo}/generate` (or `POST /orgs/{owner}/repos`, `POST
 * /user/repos` with `auto_init`), a name GitHub already has (422) adopted as `exists`; `core.json`
 * and `site/` read and written with the contents API (`GET`/`PUT /repos/{owner}/{repo}/contents/{path}`,
 * base64 and the file's `sha`, one commit per change); `site/` of a branch from its tarball.
 */
export const make = (options: GitHubSourceOptions): SourceHost["Type"] => {
  const api = GitHubApi.make({
    token: options.token,
    baseUrl: options.baseUrl ?? GITHUB_API_URL,
    ...(options.requestTimeout === undefined ? {} : { requestTimeout: options.requestTimeout }),
    ...(options.maxRetryAfter === undefined ? {} : { maxRetryAfter: options.maxRetryAfter }),
    ...(options.rateLimitRetries === undefined ? {} : { rateLimitRetries: options.rateLimitRetries })
  })
  const repoPath = (fullName: string) => `/repos/${fullName.split("/").map(GitHubApi.seg).join("/")}`
  const contentsPath = (fullName: string, path: string) => `${repoPath(fullName)}/contents/${path.split("/").map(GitHubApi.seg).join("/")}`

  /** The owner new repositories go to: the configured one, else the token's user (`GET /user`). */
  const ownerLogin: Effect.Effect<string, UpstreamUnavailable> = options.owner !== undefined
    ? Effect.succeed(options.owner)
    : Effect.flatMap(api.request({ method: "GET", path: "/user" }), (answer) =>
      answer.status === 200 && typeof answer.body?.login === "string"
        ? Effect.succeed(answer.body.login as string)
        : Effect.fail(api.fail(`GitHub GET /user failed (${answer.status}): the token's user is unknown; set GITHUB_OWNER`)))

  const repoOf = (body: any, what: string) =>
    isRepo(body) ? Effect.succeed(body) : Effect.fail(api.fail(`GitHub answered ${what} without a repository`))

  /** A file of a branch: its text and `sha`, `None` when absent. */
  const readFile = (fullName: string, path: string, ref: string) =>
    Effect.flatMap(api.request({ method: "GET", path: contentsPath(fullName, path), query: { ref } }), (answer) => {
      if (answer.status === 404) return Effect.succeed(Option.none<{ text: string; sha: string }>())
      const body = answer.body
      if (answer.status !== 200 || body?.type !== "file" || typeof body.sha !== "string" || typeof body.content !== "string") {
        return Effect.fail(api.fail(`GitHub GET ${path} of ${fullName} answered ${answer.status} without a file`))
      }
      const text = Buffer.from(String(body.content).replace(/\s+/g, ""), body.encoding === "base64" ? "base64" : "utf8").toString("utf8")
      return Effect.succeed(Option.some({ text, sha: body.sha as string }))
    })

  /**
   * Write `path` on `branch` as one commit, `next` computing the new text from the current one
   * (`undefined`: nothing to write). A stale `sha` (409, or 422 when one appeared) reads again.
   */
  const writeFile = (fullName: string, branch: string, path: string, message: string, next: (current: Option.Option<string>) => string | undefined) =>
    Effect.gen(function*() {
      for (let attempt = 1;; attempt++) {
        const current = yield* readFile(fullName, path, branch)
        const text = next(Option.map(current, (file) => file.text))
        if (text === undefined || Option.match(current, { onNone: () => false, onSome: (file) => file.text === text })) return
        const answer = yield* api.request({
          method: "PUT",
          path: contentsPath(fullName, path),
          json: {
            message,
            content: Buffer.from(text, "utf8").toString("base64"),
            branch,
            ...Option.match(current, { onNone: () => ({}), onSome: (file) => ({ sha: file.sha }) })
          }
        })
        if (answer.status === 200 || answer.status === 201) return
        if ((answer.status === 409 || answer.status === 422 || answer.status === 404) && attempt < WRITE_ATTEMPTS) {
          // A repository generated from a template is filled in asynchronously: its branch may not be there yet.
          yield* Effect.sleep(`${attempt * 250} millis`)
          continue
        }
        return yield* api.fail(`GitHub PUT ${path} of ${fullName} failed (${answer.status}): ${String(answer.body?.message ?? "").slice(0, 200)}`)
      }
    })

  const make = (repo: NewSourceRepo) =>
    Effect.gen(function*() {
      const common = { name: repo.name, private: options.private ?? true, description: `Core platform ${repo.platformId}` }
      if (options.template !== undefined) {
        return yield* api.request({
          method: "POST",
          path: `${repoPath(options.template)}/generate`,
          json: { ...common, include_all_branches: false, ...(options.owner === undefined ? {} : { owner: options.owner }) }
        })
      }
      return yield* api.request({
        method: "POST",
        path: options.owner === undefined ? "/user/repos" : `/orgs/${GitHubApi.seg(options.owner)}/repos`,
        json: { ...common, auto_init: true }
      })
    })

  const create = (repo: NewSourceRepo): Effect.Effect<CreatedRepo, UpstreamUnavailable> =>
    Effect.gen(function*() {
      const answer = yield* make(repo)
      let made: GitHubRepo
      let created: boolean
      if (answer.status === 201 || answer.status === 200) {
        made = yield* repoOf(answer.body, "the repository's creation")
        created = true
      } else if (answer.status === 422) {
        // "name already exists on this account": the repository is there (a retry, or made before): adopt it.
        const fullName = `${yield* ownerLogin}/${repo.name}`
        const existing = yield* api.request({ method: "GET", path: repoPath(fullName) })
        if (existing.status !== 200) {
          return yield* api.fail(`GitHub refused to create ${fullName} (422): ${String(answer.body?.message ?? "").slice(0, 200)}`)
        }
        made = yield* repoOf(existing.body, `GET ${fullName}`)
        created = false
      } else if (answer.status === 404) {
        return yield* api.fail(options.template === undefined
          ? `GitHub: the organization ${options.owner ?? "(the token's user)"} was not found or the token cannot create repositories in it`
          : `GitHub: the template repository ${options.template} was not found (or is not a template the token can read)`)
      } else {
        return yield* api.fail(`GitHub answered the repository's creation with ${answer.status}`)
      }
      const config = `${JSON.stringify(repo.config, null, 2)}\n`
      // `core.json` holds the platform's configuration; an existing repository keeps its own.
      yield* writeFile(made.full_name, made.default_branch, CONFIG_FILE, "Create the platform's repository", (current) =>
        created || Option.isNone(current) ? config : undefined)
      yield* writeFile(made.full_name, made.default_branch, PLACEHOLDER, "Add the site's placeholder page", (current) =>
        Option.isNone(current) ? placeholder(String(repo.config.displayName ?? repo.name)) : undefined)
      return { repoFullName: made.full_name, defaultBranch: made.default_branch, cloneUrl: made.clone_url, created }
    }).pipe(Effect.withSpan("SourceHostGitHub.create", { attributes: { name: repo.name } }))

  const updateConfig = (repo: SourceRepo, update: (config: Record<string, unknown>) => Record<string, unknown>, message: string) =>
    writeFile(repo.repoFullName, repo.defaultBranch, CONFIG_FILE, message, (current) => {
      let config: Record<string, unknown> = {}
      try {
        const parsed = JSON.parse(Option.getOrElse(current, () => "{}"))
        if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) config = parsed
      } catch {
        config = {}
      }
      return `${JSON.stringify(update(config), null, 2)}\n`
    }).pipe(Effect.withSpan("SourceHostGitHub.updateConfig", { attributes: { repo: repo.repoFullName } }))

  /** The branch's tarball (`<owner>-<repo>-<sha>/…`), its `site/` re-packed at the root of `file`. */
  const archive = (repo: SourceRepo, branch: string, file: string) =>
    Effect.gen(function*() {
      const body = yield* api.download(`${repoPath(repo.repoFullName)}/tarball/${GitHubApi.seg(branch)}`)
      yield* Effect.tryPromise({
        try: () => repack(body, file),
        catch: (cause) => api.fail(`GitHub's tarball of ${repo.repoFullName}@${branch} could not be read: ${messageOf(cause).slice(0, 200)}`)
      })
    }).pipe(Effect.withSpan("SourceHostGitHub.archive", { attributes: { repo: repo.repoFullName, branch } }))

  return { name: "github", create, updateConfig, archive }
}

/** Copy the regular files under `<top>/site/` of a gzip tarball into a new gzip tarball at `file`. */
const repack = async (body: ReadableStream<Uint8Array>, file: string) => {
  await Fs.mkdir(Path.dirname(file), { recursive: true })
  const extract = Tar.extract()
  const pack = Tar.pack()
  const written = pipeline(pack, createGzip(), createWriteStream(file))
  const read = pipeline(Readable.fromWeb(body as never), createGunzip(), extract)
  for await (const entry of extract) {
    const name = entry.header.name.split("/").slice(1).join("/")
    if (entry.header.type === "file" && name.startsWith("site/") && name.length > "site/".length) {
      await new Promise<void>((resolve, reject) => {
        const sink = pack.entry({ name: name.slice("site/".length), size: entry.header.size ?? 0, mode: 0o644, mtime: entry.header.mtime ?? new Date(0) }, (error) =>
          error ? reject(error) : resolve())
        entry.pipe(sink)
      })
    } else {
      entry.resume()
    }
  }
  await read
  pack.finalize()
  await written
}

/** The GitHub source host with explicit settings (tests, hosts). */
export const layer = (options: GitHubSourceOptions): Layer.Layer<SourceHost> => Layer.succeed(SourceHost, make(options))

/**
 * The source host configuration selects (decision 0489): GitHub's when `GITHUB_TOKEN` is set (with
 * `GITHUB_OWNER`, `GITHUB_TEMPLATE`, `GITHUB_API_URL`), else `otherwise` (local bare git repositories).
 *
 * @example
 * SourceHostGitHub.whenConfigured(SourceHostLocal)
 */
export const whenConfigured = <E, R>(otherwise: Layer.Layer<SourceHost, E, R>): Layer.Layer<SourceHost, E, R | DeployConfig> =>
  Layer.unwrapEffect(
    Effect.map(DeployConfig, (config) =>
      Option.match(config.githubToken, {
        onNone: () => otherwise,
        onSome: (token): Layer.Layer<SourceHost, E, R> =>
          layer({
            token,
            baseUrl: config.githubApiUrl,
            ...Option.match(config.githubOwner, { onNone: () => ({}), onSome: (owner) => ({ owner }) }),
            ...Option.match(config.githubTemplate, { onNone: () => ({}), onSome: (template) => ({ template }) })
          })
      }))
  )
