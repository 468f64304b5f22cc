import * as Fs from "node:fs/promises"
import type { IncomingMessage, ServerResponse } from "node:http"
import * as Path from "node:path"
import { SqlClient } from "@effect/sql"
import { Effect, Runtime } from "effect"
import * as LocalEdge from "./adapters/LocalEdge.js"
import { makeLocalEdgeRepo } from "./adapters/LocalEdgeRepo.js"

/** A `node:http` request listener. */
export type Listener = (request: IncomingMessage, response: ServerResponse) => void

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".wasm": "application/wasm",
  ".woff2": "font/woff2"
}

/**
 * A file name carrying a content hash (`app.3f2a9c1b.js`, `index-BmX7q2Lp.css`): its bytes never
 * change under that name, so it is cached for a year, `immutable` (issue 15).
 */
const HASHED = /[.-](?=[A-Za-z0-9_]*\d)[A-Za-z0-9_]{8,}\.[a-z0-9]+$/

const send = (response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", ...headers })
  response.end(body)
}

/** The file a path names inside `dir` (a directory: its `index.html`); `undefined` outside it or absent. */
const fileOf = async (dir: string, pathname: string): Promise<string | undefined> => {
  let decoded: string
  try {
    decoded = decodeURIComponent(pathname)
  } catch {
    return undefined
  }
  if (decoded.includes("\0")) return undefined
  const target = Path.resolve(dir, `.${Path.posix.normalize(`/${decoded}`)}`)
  if (target !== dir && !target.startsWith(dir + Path.sep)) return undefined
  const stat = await Fs.stat(target).catch(() => undefined)
  if (stat === undefined) return undefined
  if (stat.isDirectory()) {
    const index = Path.join(target, "index.html")
    return (await Fs.stat(index).catch(() => undefined))?.isFile() === true ? index : undefined
  }
  return stat.isFile() ? target : undefined
}

/**
 * Serve the local edge's `pages` projects in front of `next` (decision 0296): a request whose
 * `Host` is `<project>.localhost[:port]` gets the files of `<root>/pages/<project>/` (a directory
 * answers its `index.html`, `404.html` when a file is missing); `451` while the project's platform
 * is suspended (`provisioning.platform_status`), `404` for a project the edge does not list. Any
 * other host goes to `next` (the gateway).
 *
 * Behind a gateway that forwards the sites to the provisioning service (`serve --service
 * provisioning`, decision 0554), `forwardedHost` reads the site's host from the gateway's
 * `X-Forwarded-Host` (the request's `Host` is then the service's own address).
 */
export const listener = (
  next: Listener,
  options: { readonly root: string; readonly forwardedHost?: boolean }
): Effect.Effect<Listener, never, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const repo = makeLocalEdgeRepo(yield* SqlClient.SqlClient)
    const runtime = yield* Effect.runtime<never>()
    const root = Path.resolve(options.root)
    const lookup = (project: string) =>
      Runtime.runPromise(runtime)(
        repo.pagesProject(project)
      )
    const serve = async (project: string, request: IncomingMessage, response: ServerResponse, branch?: string) => {
      if (request.method !== "GET" && request.method !== "HEAD") {
        return send(response, 405, "Method Not Allowed\n", { allow: "GET, HEAD" })
      }
      const found = await lookup(project)
      if (found === undefined) return send(response, 404, `No pages project ${project}\n`)
      if (found.status === "suspended") {
        return send(response, 451, "<!doctype html>\n<title>451 Unavailable</title><h1>Unavailable</h1><p>This platform is suspended.</p>\n", {
          "content-type": "text/html; charset=utf-8"
        })
      }
      const dir = branch === undefined ? LocalEdge.pagesDir(root, project) : LocalEdge.previewDir(root, project, branch)
      const pathname = new URL(request.url ?? "/", "http://localhost").pathname
      const file = await fileOf(dir, pathname)
      const notFound = file === undefined ? await fileOf(dir, "/404.html") : undefined
      const path = file ?? notFound
      if (path === undefined) return send(response, 404, "Not Found\n")
      const body = await Fs.readFile(path)
      response.writeHead(file === undefined ? 404 : 200, {
        "content-type": TYPES[Path.extname(path).toLowerCase()] ?? "application/octet-stream",
        "content-length": String(body.length),
        "cache-control": file !== undefined && HASHED.test(Path.basename(path)) ? "public, max-age=31536000, immutable" : "no-cache"
      })
      response.end(request.method === "HEAD" ? undefined : body)
    }
    const hostOf = (request: IncomingMessage): string | undefined => {
      const forwarded = options.forwardedHost === true ? request.headers["x-forwarded-host"] : undefined
      return typeof forwarded === "string" && forwarded !== "" ? forwarded.split(",")[0]!.trim() : request.headers.host
    }
    return (request, response) => {
      const host = hostOf(request)
      const project = LocalEdge.projectOfHost(host)
      const preview = project === undefined ? LocalEdge.previewOfHost(host) : undefined
      if (project === undefined && preview === undefined) return next(request, response)
      serve(project ?? preview!.project, request, response, preview?.branch).catch(() => {
        if (!response.headersSent) send(response, 503, "Service Unavailable\n")
        else response.destroy()
      })
    }
  })
