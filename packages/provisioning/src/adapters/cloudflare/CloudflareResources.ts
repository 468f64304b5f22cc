import { Effect, Option } from "effect"
import { JobFailed } from "../../JobHandlers.js"
import type { EdgeResourceHandle, EdgeResourceSpec, EdgeResourceType } from "../../ports/EdgeProvider.js"
import { type CloudflareApi, seg } from "./CloudflareApi.js"

/** What a resource kind needs besides the API: the Workers for Platforms namespace, the script's defaults. */
export interface ResourceSettings {
  /** Worker scripts go to this dispatch namespace (Workers for Platforms) instead of the account's Workers. */
  readonly dispatchNamespace: string | undefined
  /** A new script's `compatibility_date`. */
  readonly compatibilityDate: string
  /** Bindings every new script gets (the control namespace, the platform id). */
  readonly bindings: (spec: EdgeResourceSpec) => Effect.Effect<ReadonlyArray<Record<string, unknown>>, JobFailed>
}

/** One kind of resource on Cloudflare: find it by its (deterministic) name, make it, remove it. */
interface Kind {
  readonly find: (name: string) => Effect.Effect<Option.Option<EdgeResourceHandle>, JobFailed>
  readonly create: (spec: EdgeResourceSpec) => Effect.Effect<EdgeResourceHandle, JobFailed>
  readonly remove: (name: string, handle: EdgeResourceHandle) => Effect.Effect<void, JobFailed>
}

/** A script that answers 503 until a deploy replaces it. */
export const PLACEHOLDER_SCRIPT =
  `export default { fetch() { return new Response("Not deployed yet", { status: 503 }) } }\n`

/** The module a worker's `config.script` gives (a string), else the placeholder. */
const scriptOf = (spec: EdgeResourceSpec): string =>
  typeof spec.config.script === "string" && spec.config.script.length > 0 ? spec.config.script : PLACEHOLDER_SCRIPT

const stringOf = (value: unknown, fallback: string): string => typeof value === "string" && value.length > 0 ? value : fallback

/** Every page of a page-numbered list (KV namespaces, D1 databases). */
const allPages = <A>(api: CloudflareApi, path: string, query: Record<string, string | undefined> = {}) =>
  Effect.gen(function*() {
    const items: Array<A> = []
    for (let page = 1;; page++) {
      const envelope = yield* api.required<ReadonlyArray<A>>({ method: "GET", path, query: { ...query, page, per_page: 100 } })
      items.push(...(envelope.result ?? []))
      const info = envelope.result_info
      const total = info?.total_count
      if ((envelope.result ?? []).length < 100 || (total !== undefined && items.length >= total)) return items
    }
  })

/** The six kinds (DESIGN §7, decision 0299): Workers (or Workers for Platforms), Pages, D1, R2, KV, Queues. */
export const kinds = (api: CloudflareApi, settings: ResourceSettings): Record<EdgeResourceType, Kind> => {
  const account = api.account
  const upload = (path: string, spec: EdgeResourceSpec) =>
    Effect.gen(function*() {
      const form = new FormData()
      const metadata = {
        main_module: "worker.js",
        compatibility_date: stringOf(spec.config.compatibilityDate, settings.compatibilityDate),
        bindings: yield* settings.bindings(spec)
      }
      form.set("metadata", new Blob([JSON.stringify(metadata)], { type: "application/json" }))
      form.set("worker.js", new Blob([scriptOf(spec)], { type: "application/javascript+module" }), "worker.js")
      yield* api.required({ method: "PUT", path, body: { form } })
    })

  const dispatchNamespace = settings.dispatchNamespace
  const worker: Kind = dispatchNamespace === undefined
    ? {
      find: (name) =>
        Effect.gen(function*() {
          const listed = yield* api.required<ReadonlyArray<{ readonly id: string }>>({ method: "GET", path: `${account}/workers/scripts` })
          if (!(listed.result ?? []).some((script) => script.id === name)) return Option.none()
          return Option.some({ edgeId: name, edgeUrl: yield* workersDevUrl(name) })
        }),
      create: (spec) =>
        Effect.gen(function*() {
          yield* upload(`${account}/workers/scripts/${seg(spec.edgeName)}`, spec)
          yield* api.required({ method: "POST", path: `${account}/workers/scripts/${seg(spec.edgeName)}/subdomain`, body: { json: { enabled: true } } })
          return { edgeId: spec.edgeName, edgeUrl: yield* workersDevUrl(spec.edgeName) }
        }),
      remove: (name) => Effect.asVoid(api.request({ method: "DELETE", path: `${account}/workers/scripts/${seg(name)}`, query: { force: "true" } }))
    }
    : {
      find: (name) =>
        Effect.map(
          api.request({ method: "GET", path: `${account}/workers/dispatch/namespaces/${seg(dispatchNamespace)}/scripts/${seg(name)}` }),
          Option.map(() => ({ edgeId: `${dispatchNamespace}/${name}`, edgeUrl: null }))
        ),
      create: (spec) =>
        Effect.as(
          upload(`${account}/workers/dispatch/namespaces/${seg(dispatchNamespace)}/scripts/${seg(spec.edgeName)}`, spec),
          { edgeId: `${dispatchNamespace}/${spec.edgeName}`, edgeUrl: null }
        ),
      remove: (name) =>
        Effect.asVoid(api.request({ method: "DELETE", path: `${account}/workers/dispatch/namespaces/${seg(dispatchNamespace)}/scripts/${seg(name)}`, query: { force: "true" } }))
    }

  /** `https://<script>.<account subdomain>.workers.dev`, or null when the account has no workers.dev subdomain. */
  function workersDevUrl(name: string) {
    return Effect.map(
      api.request<{ readonly subdomain?: string }>({ method: "GET", path: `${account}/workers/subdomain` }),
      (envelope) => Option.match(Option.flatMapNullable(envelope, (e) => e.result?.subdomain), { onNone: () => null, onSome: (sub) => `https://${name}.${sub}.workers.dev` })
    )
  }

  interface Project { readonly id?: string; readonly name: string; readonly subdomain?: string }
  const pagesHandle = (project: Project): EdgeResourceHandle => ({
    edgeId: project.id ?? project.name,
    edgeUrl: `https://${project.subdomain ?? `${project.name}.pages.dev`}`
  })
  const pages: Kind = {
    find: (name) => Effect.map(api.request<Project>({ method: "GET", path: `${account}/pages/projects/${seg(name)}` }), Option.map((e) => pagesHandle(e.result))),
    create: (spec) =>
      Effect.map(
        api.required<Project>({
          method: "POST",
          path: `${account}/pages/projects`,
          body: { json: { name: spec.edgeName, production_branch: stringOf(spec.config.productionBranch, "main") } }
        }),
        (e) => pagesHandle(e.result)
      ),
    remove: (name) => Effect.asVoid(api.request({ method: "DELETE", path: `${account}/pages/projects/${seg(name)}` }))
  }

  interface Database { readonly uuid: string; readonly name: string }
  const sqlDb: Kind = {
    find: (name) =>
      Effect.map(
        allPages<Database>(api, `${account}/d1/database`, { name }),
        (databases) => Option.map(Option.fromNullable(databases.find((db) => db.name === name)), (db) => ({ edgeId: db.uuid, edgeUrl: null }))
      ),
    create: (spec) =>
      Effect.map(
        api.required<Database>({ method: "POST", path: `${account}/d1/database`, body: { json: { name: spec.edgeName } } }),
        (e) => ({ edgeId: e.result.uuid, edgeUrl: null })
      ),
    remove: (_name, handle) => Effect.asVoid(api.request({ method: "DELETE", path: `${account}/d1/database/${seg(handle.edgeId)}` }))
  }

  const bucketUrl = (name: string) => `https://${api.accountId}.r2.cloudflarestorage.com/${name}`
  const objectStore: Kind = {
    find: (name) =>
      Effect.map(api.request({ method: "GET", path: `${account}/r2/buckets/${seg(name)}` }), Option.map(() => ({ edgeId: name, edgeUrl: bucketUrl(name) }))),
    create: (spec) =>
      Effect.as(
        api.required({ method: "POST", path: `${account}/r2/buckets`, body: { json: { name: spec.edgeName } } }),
        { edgeId: spec.edgeName, edgeUrl: bucketUrl(spec.edgeName) }
      ),
    remove: (name) => Effect.asVoid(api.request({ method: "DELETE", path: `${account}/r2/buckets/${seg(name)}` }))
  }

  const kv: Kind = {
    find: (name) => Effect.map(findNamespace(api, name), Option.map((id) => ({ edgeId: id, edgeUrl: null }))),
    create: (spec) => Effect.map(createNamespace(api, spec.edgeName), (id) => ({ edgeId: id, edgeUrl: null })),
    remove: (_name, handle) => Effect.asVoid(api.request({ method: "DELETE", path: `${account}/storage/kv/namespaces/${seg(handle.edgeId)}` }))
  }

  interface Queue { readonly queue_id: string; readonly queue_name: string }
  const queue: Kind = {
    find: (name) =>
      Effect.map(
        api.required<ReadonlyArray<Queue>>({ method: "GET", path: `${account}/queues` }),
        (e) => Option.map(Option.fromNullable((e.result ?? []).find((q) => q.queue_name === name)), (q) => ({ edgeId: q.queue_id, edgeUrl: null }))
      ),
    create: (spec) =>
      Effect.map(
        api.required<Queue>({ method: "POST", path: `${account}/queues`, body: { json: { queue_name: spec.edgeName } } }),
        (e) => ({ edgeId: e.result.queue_id, edgeUrl: null })
      ),
    remove: (_name, handle) => Effect.asVoid(api.request({ method: "DELETE", path: `${account}/queues/${seg(handle.edgeId)}` }))
  }

  return { worker, pages, sql_db: sqlDb, object_store: objectStore, kv, queue }
}

/** The id of the KV namespace titled `title`, if there is one. */
export const findNamespace = (api: CloudflareApi, title: string) =>
  Effect.map(
    allPages<{ readonly id: string; readonly title: string }>(api, `${api.account}/storage/kv/namespaces`),
    (namespaces) => Option.map(Option.fromNullable(namespaces.find((ns) => ns.title === title)), (ns) => ns.id)
  )

/** Create the KV namespace `title`; one made meanwhile by another worker (10014) is answered instead. */
export const createNamespace = (api: CloudflareApi, title: string): Effect.Effect<string, JobFailed> =>
  api.required<{ readonly id: string }>({ method: "POST", path: `${api.account}/storage/kv/namespaces`, body: { json: { title } } }).pipe(
    Effect.map((e) => e.result.id),
    Effect.catchAll((error) =>
      error.message.includes("[10014]")
        ? Effect.flatMap(findNamespace(api, title), Option.match({ onNone: () => Effect.fail(error), onSome: Effect.succeed }))
        : Effect.fail(error)
    )
  )

/** Data-holding kinds: `deleteData: false` leaves them in place (decision 0299). */
export const HOLDS_DATA: ReadonlySet<EdgeResourceType> = new Set(["sql_db", "object_store", "kv"])

/** A JobFailed for a resource type the adapter does not know (the port's union, checked at runtime). */
export const unknownType = (type: string) => new JobFailed({ message: `Cloudflare: unknown resource type ${JSON.stringify(type)}` })
