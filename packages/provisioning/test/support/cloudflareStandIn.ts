import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A local stand-in for Cloudflare's v4 API (api.cloudflare.com/client/v4), in memory: the
 * endpoints the Cloudflare edge provider calls, with their documented request and answer shapes
 * (`{ success, errors: [{ code, message }], messages, result, result_info }`), their error codes,
 * the bearer token check, and a rate-limit mode (429 with `Retry-After`). A real HTTP server: the
 * adapter's `fetch` is not mocked.
 */

/** One request the stand-in answered. */
export interface Logged {
  readonly method: string
  readonly path: string
  readonly query: Record<string, string>
  readonly status: number
}

interface Script { id: string; metadata: Record<string, unknown>; content: string; workersDev: boolean; created_on: string }
interface KvValue { value: string; metadata: unknown }
interface Namespace { id: string; title: string; values: Map<string, KvValue> }
interface Hostname { id: string; hostname: string; status: string; custom_origin_server?: string; ssl: Record<string, unknown> }

export interface StandInOptions {
  readonly accountId: string
  readonly token: string
  /** The account's workers.dev subdomain. @default "core-test" */
  readonly workersSubdomain?: string
  /** The zones of the account (for custom hostnames). */
  readonly zones?: ReadonlyArray<string>
}

const now = () => new Date().toISOString()
const hex = (n: number) => randomUUID().replace(/-/g, "").slice(0, n)

export const startCloudflareStandIn = async (options: StandInOptions) => {
  const scripts = new Map<string, Script>()
  const dispatch = new Map<string, Map<string, Script>>()
  /** Worker secrets by `<namespace or "">/<script>`: name → value (a test reads them to check what reached the edge). */
  const secrets = new Map<string, Map<string, string>>()
  /** `PUT …/scripts/{script}/secrets` with `{ name, text, type: "secret_text" }`. */
  const putSecret = (res: ServerResponse, namespace: string, script: Script | undefined, name: string, body: Buffer) => {
    if (!script) return fail(res, 404, 10007, "This Worker does not exist on your account.")
    const secret = jsonOf(body) as { name?: unknown; text?: unknown; type?: unknown }
    if (typeof secret.name !== "string" || typeof secret.text !== "string" || secret.type !== "secret_text") {
      return fail(res, 400, 10021, "Secret name, text and type (secret_text) are required")
    }
    const key = `${namespace}/${name}`
    secrets.set(key, (secrets.get(key) ?? new Map()).set(secret.name, secret.text))
    return ok(res, { name: secret.name, type: "secret_text" })
  }
  const projects = new Map<string, { id: string; name: string; subdomain: string; production_branch: string; created_on: string }>()
  const databases = new Map<string, { uuid: string; name: string; created_at: string; version: string }>()
  const buckets = new Map<string, { name: string; creation_date: string; location: string; objects: Set<string> }>()
  const namespaces = new Map<string, Namespace>()
  const queues = new Map<string, { queue_id: string; queue_name: string; created_on: string; modified_on: string }>()
  const zones = new Map((options.zones ?? []).map((name) => [hex(32), { name, hostnames: new Map<string, Hostname>() }] as const))
  const log: Array<Logged> = []
  const failures: Array<{ status: number; code: number; message: string; match?: RegExp }> = []
  let rateLimited = 0
  let retryAfter = "1"

  const reply = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers })
    res.end(JSON.stringify(body))
    return status
  }
  const ok = (res: ServerResponse, result: unknown, resultInfo?: unknown) =>
    reply(res, 200, { success: true, errors: [], messages: [], result, ...(resultInfo === undefined ? {} : { result_info: resultInfo }) })
  const fail = (res: ServerResponse, status: number, code: number, message: string) =>
    reply(res, status, { success: false, errors: [{ code, message }], messages: [], result: null })
  const paged = <A>(res: ServerResponse, items: ReadonlyArray<A>, query: Record<string, string>) => {
    const page = Number(query.page ?? 1)
    const perPage = Number(query.per_page ?? 20)
    const slice = items.slice((page - 1) * perPage, page * perPage)
    return ok(res, slice, { page, per_page: perPage, count: slice.length, total_count: items.length })
  }

  const readBody = (req: IncomingMessage) =>
    new Promise<Buffer>((resolve, reject) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => resolve(Buffer.concat(chunks)))
      req.on("error", reject)
    })
  const formOf = (req: IncomingMessage, body: Buffer) =>
    new Request("http://stand-in/", { method: "PUT", headers: { "content-type": req.headers["content-type"] ?? "" }, body: new Uint8Array(body) }).formData()
  const jsonOf = (body: Buffer): Record<string, unknown> => {
    try {
      return JSON.parse(body.toString("utf8")) as Record<string, unknown>
    } catch {
      return {}
    }
  }
  const scriptFrom = async (req: IncomingMessage, body: Buffer, id: string, existing: Script | undefined): Promise<Script> => {
    const form = await formOf(req, body)
    const metadata = JSON.parse(await (form.get("metadata") as Blob).text()) as Record<string, unknown>
    const main = form.get(String(metadata.main_module)) as Blob | null
    return { id, metadata, content: main ? await main.text() : "", workersDev: existing?.workersDev ?? false, created_on: existing?.created_on ?? now() }
  }

  const route = async (req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<number> => {
    const url = new URL(req.url ?? "/", "http://stand-in")
    const query = Object.fromEntries(url.searchParams)
    const method = req.method ?? "GET"
    const parts = url.pathname.replace(/^\/client\/v4/, "").split("/").filter(Boolean).map(decodeURIComponent)

    if (req.headers.authorization !== `Bearer ${options.token}`) return fail(res, 403, 10000, "Authentication error")
    if (rateLimited > 0) {
      rateLimited--
      return reply(res, 429, { success: false, errors: [{ code: 971, message: "Please wait and consider throttling your request speed" }], messages: [], result: null }, { "retry-after": retryAfter })
    }
    const injected = failures.findIndex((f) => f.match === undefined || f.match.test(`${method} ${url.pathname}`))
    if (injected >= 0) {
      const [f] = failures.splice(injected, 1)
      return fail(res, f!.status, f!.code, f!.message)
    }

    if (parts[0] === "zones") {
      if (parts.length === 1 && method === "GET") {
        const found = [...zones].filter(([, z]) => (query.name === undefined || z.name === query.name) && query["account.id"] === options.accountId)
        return paged(res, found.map(([id, z]) => ({ id, name: z.name, status: "active", account: { id: options.accountId } })), query)
      }
      const zone = zones.get(parts[1] ?? "")
      if (!zone) return fail(res, 404, 1001, "Invalid zone identifier")
      if (parts[2] !== "custom_hostnames") return fail(res, 404, 7003, `Could not route to ${url.pathname}, perhaps your object identifier is invalid?`)
      if (parts.length === 3 && method === "GET") {
        return paged(res, [...zone.hostnames.values()].filter((h) => query.hostname === undefined || h.hostname === query.hostname), query)
      }
      if (parts.length === 3 && method === "POST") {
        const input = jsonOf(body)
        const hostname = String(input.hostname ?? "")
        if ([...zone.hostnames.values()].some((h) => h.hostname === hostname)) return fail(res, 409, 1406, "Duplicate custom hostname found.")
        const created: Hostname = {
          id: randomUUID(),
          hostname,
          status: "pending",
          ssl: { ...(input.ssl as object), status: "initializing" },
          ...(typeof input.custom_origin_server === "string" ? { custom_origin_server: input.custom_origin_server } : {})
        }
        zone.hostnames.set(created.id, created)
        return ok(res, { ...created, created_at: now() })
      }
      if (parts.length === 4 && method === "DELETE") {
        if (!zone.hostnames.delete(parts[3]!)) return fail(res, 404, 1436, "The custom hostname was not found.")
        return ok(res, { id: parts[3] })
      }
      return fail(res, 405, 10405, "Method not allowed")
    }

    if (parts[0] !== "accounts" || parts[1] !== options.accountId) return fail(res, 403, 9109, "Unauthorized to access requested resource")
    const rest = parts.slice(2)
    const at = (...segments: Array<string | null>) =>
      segments.length === rest.length && segments.every((s, i) => s === null || s === rest[i])

    // Workers scripts and the account's workers.dev subdomain.
    if (at("workers", "subdomain") && method === "GET") return ok(res, { subdomain: options.workersSubdomain ?? "core-test" })
    if (at("workers", "scripts") && method === "GET") {
      return ok(res, [...scripts.values()].map((s) => ({ id: s.id, created_on: s.created_on, modified_on: s.created_on })))
    }
    if (at("workers", "scripts", null)) {
      const name = rest[2]!
      if (method === "PUT") {
        const script = await scriptFrom(req, body, name, scripts.get(name))
        scripts.set(name, script)
        return ok(res, { id: name, etag: hex(16), created_on: script.created_on, modified_on: now() })
      }
      if (method === "DELETE") {
        if (!scripts.delete(name)) return fail(res, 404, 10007, "This Worker does not exist on your account.")
        return ok(res, null)
      }
    }
    if (at("workers", "scripts", null, "secrets") && method === "PUT") return putSecret(res, "", scripts.get(rest[2]!), rest[2]!, body)
    if (at("workers", "dispatch", "namespaces", null, "scripts", null, "secrets") && method === "PUT") {
      const ns = dispatch.get(rest[3]!)
      if (!ns) return fail(res, 404, 100119, "This namespace does not exist.")
      return putSecret(res, rest[3]!, ns.get(rest[5]!), rest[5]!, body)
    }
    if (at("workers", "scripts", null, "subdomain") && method === "POST") {
      const script = scripts.get(rest[2]!)
      if (!script) return fail(res, 404, 10007, "This Worker does not exist on your account.")
      script.workersDev = jsonOf(body).enabled === true
      return ok(res, { enabled: script.workersDev, previews_enabled: false })
    }
    if (at("workers", "dispatch", "namespaces", null, "scripts", null)) {
      const ns = dispatch.get(rest[3]!)
      if (!ns) return fail(res, 404, 100119, "This namespace does not exist.")
      const name = rest[5]!
      if (method === "GET") {
        const script = ns.get(name)
        return script ? ok(res, { created_on: script.created_on, modified_on: script.created_on, script: { id: name } }) : fail(res, 404, 10007, "This Worker does not exist on your account.")
      }
      if (method === "PUT") {
        const script = await scriptFrom(req, body, name, ns.get(name))
        ns.set(name, script)
        return ok(res, { id: name, etag: hex(16), created_on: script.created_on, modified_on: now() })
      }
      if (method === "DELETE") {
        if (!ns.delete(name)) return fail(res, 404, 10007, "This Worker does not exist on your account.")
        return ok(res, null)
      }
    }

    // Pages projects.
    if (at("pages", "projects") && method === "POST") {
      const input = jsonOf(body)
      const name = String(input.name ?? "")
      if (projects.has(name)) return fail(res, 409, 8000002, "A project with this name already exists. Choose a different project name.")
      const project = { id: randomUUID(), name, subdomain: `${name}.pages.dev`, production_branch: String(input.production_branch ?? ""), created_on: now() }
      projects.set(name, project)
      return ok(res, project)
    }
    if (at("pages", "projects", null)) {
      const project = projects.get(rest[2]!)
      if (!project) return fail(res, 404, 8000007, "Project not found. The specified project name does not match any of your existing projects.")
      if (method === "GET") return ok(res, project)
      if (method === "DELETE") {
        projects.delete(project.name)
        return ok(res, null)
      }
    }

    // D1 databases.
    if (at("d1", "database") && method === "GET") {
      return paged(res, [...databases.values()].filter((d) => query.name === undefined || d.name.includes(query.name)), query)
    }
    if (at("d1", "database") && method === "POST") {
      const name = String(jsonOf(body).name ?? "")
      if ([...databases.values()].some((d) => d.name === name)) return fail(res, 400, 7502, "A database with that name already exists")
      const database = { uuid: randomUUID(), name, created_at: now(), version: "production" }
      databases.set(database.uuid, database)
      return ok(res, database)
    }
    if (at("d1", "database", null) && method === "DELETE") {
      if (!databases.delete(rest[2]!)) return fail(res, 404, 7404, `The database ${rest[2]} could not be found`)
      return ok(res, null)
    }

    // R2 buckets.
    if (at("r2", "buckets") && method === "POST") {
      const name = String(jsonOf(body).name ?? "")
      if (buckets.has(name)) return fail(res, 409, 10004, "The bucket you tried to create already exists, and you own it.")
      buckets.set(name, { name, creation_date: now(), location: "ENAM", objects: new Set() })
      return ok(res, { name, creation_date: buckets.get(name)!.creation_date, location: "ENAM" })
    }
    if (at("r2", "buckets", null)) {
      const bucket = buckets.get(rest[2]!)
      if (!bucket) return fail(res, 404, 10006, "The specified bucket does not exist.")
      if (method === "GET") return ok(res, { name: bucket.name, creation_date: bucket.creation_date, location: bucket.location })
      if (method === "DELETE") {
        if (bucket.objects.size > 0) return fail(res, 409, 10008, "The bucket you tried to delete is not empty.")
        buckets.delete(bucket.name)
        return ok(res, {})
      }
    }

    // KV namespaces, their values and keys.
    if (at("storage", "kv", "namespaces") && method === "GET") {
      return paged(res, [...namespaces.values()].map((n) => ({ id: n.id, title: n.title, supports_url_encoding: true })), query)
    }
    if (at("storage", "kv", "namespaces") && method === "POST") {
      const title = String(jsonOf(body).title ?? "")
      if ([...namespaces.values()].some((n) => n.title === title)) return fail(res, 400, 10014, "a namespace with this account ID and title already exists")
      const ns: Namespace = { id: hex(32), title, values: new Map() }
      namespaces.set(ns.id, ns)
      return ok(res, { id: ns.id, title, supports_url_encoding: true })
    }
    if (rest[0] === "storage" && rest[1] === "kv" && rest[2] === "namespaces" && rest[3] !== undefined) {
      const ns = namespaces.get(rest[3])
      if (!ns) return fail(res, 404, 10013, "list keys: 'namespace not found'")
      if (rest.length === 4 && method === "DELETE") {
        namespaces.delete(ns.id)
        return ok(res, null)
      }
      if (at("storage", "kv", "namespaces", null, "keys") && method === "GET") {
        const limit = Number(query.limit ?? 1000)
        const names = [...ns.values.keys()].filter((k) => k.startsWith(query.prefix ?? "")).sort()
        const start = query.cursor ? Number(Buffer.from(query.cursor, "base64url").toString()) : 0
        const slice = names.slice(start, start + limit)
        const next = start + limit < names.length ? Buffer.from(String(start + limit)).toString("base64url") : ""
        return ok(res, slice.map((name) => ({ name, ...(ns.values.get(name)!.metadata === undefined ? {} : { metadata: ns.values.get(name)!.metadata }) })), { count: slice.length, cursor: next })
      }
      if (at("storage", "kv", "namespaces", null, "values", null)) {
        const key = rest[5]!
        if (method === "PUT") {
          if ((req.headers["content-type"] ?? "").startsWith("multipart/form-data")) {
            const form = await formOf(req, body)
            const metadata = form.get("metadata")
            ns.values.set(key, { value: String(form.get("value") ?? ""), metadata: typeof metadata === "string" ? JSON.parse(metadata) : undefined })
          } else {
            ns.values.set(key, { value: body.toString("utf8"), metadata: undefined })
          }
          return ok(res, {})
        }
        if (method === "DELETE") {
          ns.values.delete(key)
          return ok(res, {})
        }
        if (method === "GET") {
          const value = ns.values.get(key)
          if (!value) return fail(res, 404, 10009, "get: 'key not found'")
          res.writeHead(200, { "content-type": "application/octet-stream" })
          res.end(value.value)
          return 200
        }
      }
    }

    // Queues.
    if (at("queues") && method === "GET") return ok(res, [...queues.values()])
    if (at("queues") && method === "POST") {
      const name = String(jsonOf(body).queue_name ?? "")
      if ([...queues.values()].some((q) => q.queue_name === name)) return fail(res, 409, 11009, "Queue name is already taken")
      const queue = { queue_id: hex(32), queue_name: name, created_on: now(), modified_on: now() }
      queues.set(queue.queue_id, queue)
      return ok(res, { ...queue, producers: [], consumers: [], producers_total_count: 0, consumers_total_count: 0 })
    }
    if (at("queues", null) && method === "DELETE") {
      if (!queues.delete(rest[1]!)) return fail(res, 404, 11000, "Queue does not exist")
      return ok(res, null)
    }

    return fail(res, 404, 7003, `Could not route to ${url.pathname}, perhaps your object identifier is invalid?`)
  }

  const server = createServer((req, res) => {
    void readBody(req).then((body) => route(req, res, body)).then(
      (status) => {
        const url = new URL(req.url ?? "/", "http://stand-in")
        log.push({ method: req.method ?? "GET", path: url.pathname.replace(/^\/client\/v4/, ""), query: Object.fromEntries(url.searchParams), status })
      },
      (error: unknown) => {
        reply(res, 500, { success: false, errors: [{ code: 10001, message: `stand-in: ${String(error)}` }], messages: [], result: null })
      }
    )
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo

  return {
    /** The base URL to give the adapter (`…/client/v4`). */
    baseUrl: `http://127.0.0.1:${port}/client/v4`,
    log,
    state: { scripts, dispatch, secrets, projects, databases, buckets, namespaces, queues, zones },
    /** The next `count` requests answer 429 with `Retry-After: seconds`. */
    rateLimit: (count: number, seconds = "1") => {
      rateLimited = count
      retryAfter = seconds
    },
    /** The next request (matching `match`, `METHOD /path`) answers this error envelope. */
    failNext: (status: number, code: number, message: string, match?: RegExp) => {
      failures.push({ status, code, message, ...(match === undefined ? {} : { match }) })
    },
    /** A Workers for Platforms dispatch namespace (made in the dashboard or by wrangler, not by the adapter). */
    addDispatchNamespace: (name: string) => dispatch.set(name, new Map()),
    /** An object in a bucket (R2's object API is S3's, not v4's). */
    putObject: (bucket: string, key: string) => buckets.get(bucket)?.objects.add(key),
    /** A custom hostname's certificate validated: `active`. */
    activateHostname: (hostname: string) => {
      for (const zone of zones.values()) for (const h of zone.hostnames.values()) if (h.hostname === hostname) h.status = "active"
    },
    /** A control-namespace value by title and key. */
    kvValue: (title: string, key: string) => [...namespaces.values()].find((n) => n.title === title)?.values.get(key),
    /** Requests made since `mark` (an index into `log`). */
    since: (mark: number) => log.slice(mark),
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

export type CloudflareStandIn = Awaited<ReturnType<typeof startCloudflareStandIn>>
