import { createHash, randomBytes } from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { gzipSync } from "node:zlib"
import * as Tar from "tar-stream"

/**
 * A local stand-in for the part of GitHub's REST API the GitHub source host uses, answering
 * GitHub's documented shapes (decision 0489): `GET /user`, `POST /repos/{owner}/{repo}/generate`,
 * `POST /orgs/{org}/repos`, `POST /user/repos`, `GET /repos/{owner}/{repo}`, `GET`/`PUT
 * /repos/{owner}/{repo}/contents/{path}` (base64, blob `sha`, 409 on a stale sha, 422 when the sha
 * is missing), `GET /repos/{owner}/{repo}/tarball/{ref}` (302 to a download host). A wrong token is
 * 401 `Bad credentials`; `limitNext` answers the next requests with a rate limit.
 */
export interface StandInRepo {
  readonly fullName: string
  readonly defaultBranch: string
  readonly isTemplate: boolean
  readonly private: boolean
  readonly files: Map<string, Buffer>
  readonly commits: Array<{ readonly message: string; readonly path: string }>
}

export interface GitHubStandIn {
  readonly url: string
  readonly token: string
  readonly user: string
  readonly repos: Map<string, StandInRepo>
  readonly requests: Array<{ readonly method: string; readonly path: string }>
  /** Add a repository (a template, or one that already exists). */
  readonly addRepo: (fullName: string, files: Record<string, string>, options?: { isTemplate?: boolean; defaultBranch?: string }) => StandInRepo
  /** Answer the next `count` API requests with a rate limit: `secondary` (403 + `retry-after: 1`) or `primary` (403, remaining 0, reset). */
  readonly limitNext: (count: number, kind: "secondary" | "primary" | "429") => void
  readonly close: () => Promise<void>
}

const blobSha = (content: Buffer) => createHash("sha1").update(`blob ${content.length}\0`).update(content).digest("hex")

const repoJson = (base: string, repo: StandInRepo) => {
  const [owner, name] = repo.fullName.split("/")
  return {
    id: 1,
    name,
    full_name: repo.fullName,
    owner: { login: owner, type: "Organization" },
    private: repo.private,
    is_template: repo.isTemplate,
    default_branch: repo.defaultBranch,
    html_url: `${base}/${repo.fullName}`,
    clone_url: `${base}/${repo.fullName}.git`,
    url: `${base}/repos/${repo.fullName}`
  }
}

const tarballOf = async (repo: StandInRepo) => {
  const pack = Tar.pack()
  const top = `${repo.fullName.replace("/", "-")}-${randomBytes(4).toString("hex")}`
  pack.entry({ name: `${top}/`, type: "directory" })
  for (const [path, content] of repo.files) pack.entry({ name: `${top}/${path}`, mode: 0o644 }, content)
  pack.finalize()
  const chunks: Array<Buffer> = []
  for await (const chunk of pack) chunks.push(chunk as Buffer)
  return gzipSync(Buffer.concat(chunks))
}

export const start = async (options: { readonly token?: string; readonly user?: string } = {}): Promise<GitHubStandIn> => {
  const token = options.token ?? `ghp_${randomBytes(12).toString("hex")}`
  const user = options.user ?? "standin-user"
  const repos = new Map<string, StandInRepo>()
  const requests: Array<{ method: string; path: string }> = []
  const limits: Array<"secondary" | "primary" | "429"> = []
  let url = ""

  const addRepo: GitHubStandIn["addRepo"] = (fullName, files, opts = {}) => {
    const repo: StandInRepo = {
      fullName,
      defaultBranch: opts.defaultBranch ?? "main",
      isTemplate: opts.isTemplate ?? false,
      private: true,
      files: new Map(Object.entries(files).map(([path, text]) => [path, Buffer.from(text)])),
      commits: [{ message: "Initial commit", path: "" }]
    }
    repos.set(fullName.toLowerCase(), repo)
    return repo
  }

  const server = Http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      void handle(request, Buffer.concat(chunks), response).catch((error) => {
        response.writeHead(500, { "content-type": "application/json" })
        response.end(JSON.stringify({ message: String(error) }))
      })
    })
  })

  const send = (response: Http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers })
    response.end(body === undefined ? "" : JSON.stringify(body))
  }
  const notFound = { message: "Not Found", documentation_url: "https://docs.github.com/rest", status: "404" }

  const createRepo = (response: Http.ServerResponse, owner: string, name: unknown, files: Record<string, string>) => {
    if (typeof name !== "string" || !/^[A-Za-z0-9_.-]{1,100}$/.test(name)) {
      return send(response, 422, { message: "Repository creation failed.", errors: [{ resource: "Repository", code: "invalid", field: "name" }] })
    }
    const fullName = `${owner}/${name}`
    if (repos.has(fullName.toLowerCase())) {
      return send(response, 422, {
        message: "Repository creation failed.",
        errors: [{ resource: "Repository", code: "custom", field: "name", message: "name already exists on this account" }],
        documentation_url: "https://docs.github.com/rest/repos/repos#create-a-repository-using-a-template",
        status: "422"
      })
    }
    return send(response, 201, repoJson(url, addRepo(fullName, files)))
  }

  const handle = async (request: Http.IncomingMessage, raw: Buffer, response: Http.ServerResponse) => {
    const target = new URL(request.url ?? "/", url)
    const path = decodeURIComponent(target.pathname)
    const method = request.method ?? "GET"
    const download = /^\/_codeload\/([^/]+)\/([^/]+)\/legacy\.tar\.gz\/(.+)$/.exec(path)
    if (download) {
      const repo = repos.get(`${download[1]}/${download[2]}`.toLowerCase())
      if (repo === undefined || download[3] !== repo.defaultBranch) return send(response, 404, notFound)
      const body = await tarballOf(repo)
      response.writeHead(200, { "content-type": "application/x-gzip", "content-length": String(body.length) })
      return response.end(body)
    }
    requests.push({ method, path })
    if (request.headers.authorization !== `Bearer ${token}`) {
      return send(response, 401, { message: "Bad credentials", documentation_url: "https://docs.github.com/rest", status: "401" })
    }
    const limit = limits.shift()
    if (limit !== undefined) {
      const message = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
      if (limit === "secondary") return send(response, 403, { message }, { "retry-after": "1" })
      if (limit === "429") return send(response, 429, { message }, { "retry-after": "1" })
      return send(response, 403, { message: "API rate limit exceeded for user." }, {
        "x-ratelimit-limit": "5000",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": String(Math.ceil(Date.now() / 1000) + 1)
      })
    }
    let body: any = {}
    try {
      body = raw.length === 0 ? {} : JSON.parse(raw.toString("utf8"))
    } catch {
      return send(response, 400, { message: "Problems parsing JSON" })
    }
    if (method === "GET" && path === "/user") return send(response, 200, { login: user, type: "User" })
    let match = /^\/repos\/([^/]+)\/([^/]+)\/generate$/.exec(path)
    if (method === "POST" && match) {
      const template = repos.get(`${match[1]}/${match[2]}`.toLowerCase())
      if (template === undefined || !template.isTemplate) return send(response, 404, notFound)
      return createRepo(response, typeof body.owner === "string" ? body.owner : user, body.name,
        Object.fromEntries([...template.files].map(([name, content]) => [name, content.toString("utf8")])))
    }
    match = /^\/orgs\/([^/]+)\/repos$/.exec(path)
    if (method === "POST" && match) return createRepo(response, match[1]!, body.name, body.auto_init ? { "README.md": `# ${body.name}\n` } : {})
    if (method === "POST" && path === "/user/repos") return createRepo(response, user, body.name, body.auto_init ? { "README.md": `# ${body.name}\n` } : {})
    match = /^\/repos\/([^/]+)\/([^/]+)(?:\/(contents|tarball)(?:\/(.*))?)?$/.exec(path)
    const repo = match === null ? undefined : repos.get(`${match[1]}/${match[2]}`.toLowerCase())
    if (match === null || repo === undefined) return send(response, 404, notFound)
    if (match[3] === undefined && method === "GET") return send(response, 200, repoJson(url, repo))
    if (match[3] === "tarball" && method === "GET") {
      if ((match[4] ?? repo.defaultBranch) !== repo.defaultBranch) return send(response, 404, notFound)
      response.writeHead(302, { location: `${url}/_codeload/${repo.fullName}/legacy.tar.gz/${repo.defaultBranch}` })
      return response.end()
    }
    const file = match[4] ?? ""
    if (match[3] === "contents" && method === "GET") {
      const ref = target.searchParams.get("ref") ?? repo.defaultBranch
      const content = repo.files.get(file)
      if (ref !== repo.defaultBranch || content === undefined) return send(response, 404, notFound)
      const base64 = content.toString("base64").replace(/(.{60})/g, "$1\n")
      return send(response, 200, {
        type: "file", encoding: "base64", size: content.length, name: file.split("/").pop(), path: file, content: base64, sha: blobSha(content)
      })
    }
    if (match[3] === "contents" && method === "PUT") {
      if (typeof body.message !== "string" || typeof body.content !== "string") {
        return send(response, 422, { message: "Invalid request.\n\n\"message\" and \"content\" are required." })
      }
      if ((body.branch ?? repo.defaultBranch) !== repo.defaultBranch) return send(response, 404, { message: "Branch not found" })
      const existing = repo.files.get(file)
      if (existing !== undefined && body.sha === undefined) return send(response, 422, { message: "Invalid request.\n\n\"sha\" wasn't supplied." })
      if (existing !== undefined && body.sha !== blobSha(existing)) return send(response, 409, { message: `${file} does not match ${body.sha}` })
      const content = Buffer.from(body.content, "base64")
      repo.files.set(file, content)
      repo.commits.push({ message: body.message, path: file })
      return send(response, existing === undefined ? 201 : 200, {
        content: { name: file.split("/").pop(), path: file, sha: blobSha(content) },
        commit: { sha: randomBytes(20).toString("hex"), message: body.message }
      })
    }
    return send(response, 404, notFound)
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    token,
    user,
    repos,
    requests,
    addRepo,
    limitNext: (count, kind) => {
      for (let i = 0; i < count; i++) limits.push(kind)
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  }
}
