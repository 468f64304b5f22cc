import { Effect, Layer, Option, Redacted, SynchronizedRef } from "effect"
import { ProvisioningConfig } from "../Config.js"
import { JobFailed } from "../JobHandlers.js"
import { EdgeProvider, type EdgeResourceListing, type EdgeResourceType } from "../ports/EdgeProvider.js"
import * as CloudflareApi from "./cloudflare/CloudflareApi.js"
import { createNamespace, findNamespace, HOLDS_DATA, kinds, unknownType } from "./cloudflare/CloudflareResources.js"

/** The Cloudflare adapter's settings: the account and token (configuration) and a few choices. */
export interface CloudflareEdgeOptions {
  readonly accountId: string
  readonly apiToken: Redacted.Redacted<string>
  /** @default https://api.cloudflare.com/client/v4 */
  readonly baseUrl?: string
  /** Put worker scripts in this Workers for Platforms dispatch namespace (unset: the account's Workers). */
  readonly dispatchNamespace?: string
  /** The KV namespace holding platform status, feature activations and the resource index. @default "core-control" */
  readonly controlNamespace?: string
  /** A new script's `compatibility_date`. @default "2024-09-23" */
  readonly compatibilityDate?: string
  readonly requestTimeout?: CloudflareApi.CloudflareApiOptions["requestTimeout"]
  readonly maxRetryAfter?: CloudflareApi.CloudflareApiOptions["maxRetryAfter"]
  readonly rateLimitRetries?: number
}

const TYPES: ReadonlySet<string> = new Set<EdgeResourceType>(["worker", "pages", "sql_db", "object_store", "kv", "queue"])

/** What the resource index keeps in a key's metadata (at most 1 KiB). */
interface IndexEntry {
  readonly resourceType: EdgeResourceType
  readonly edgeName: string
  readonly edgeId: string
  readonly edgeUrl: string | null
}

/** Keys of the control namespace, one family per platform (decision 0300). */
const keys = {
  platform: (platformId: string) => `platform:${platformId}:`,
  status: (platformId: string) => `platform:${platformId}:status`,
  feature: (f: { platformId: string; entityId: string; featureId: string; environment: string }) =>
    `platform:${f.platformId}:feature:${f.entityId}:${f.featureId}:${f.environment}`,
  resources: (platformId: string) => `platform:${platformId}:resource:`,
  resource: (platformId: string, type: string, edgeName: string) => `platform:${platformId}:resource:${type}:${edgeName}`
}

/** The edge provider over Cloudflare's REST API (DESIGN §7; decisions 0298–0303). */
export const make = (options: CloudflareEdgeOptions) =>
  Effect.gen(function*() {
    const api = CloudflareApi.make(options)
    const { account } = api
    const controlTitle = options.controlNamespace ?? "core-control"
    /** The control namespace's id, found or made once and then kept. */
    const controlId = yield* SynchronizedRef.make(Option.none<string>())
    const control = SynchronizedRef.modifyEffect(controlId, (known) =>
      Option.isSome(known)
        ? Effect.succeed([known.value, known] as const)
        : Effect.map(
          Effect.flatMap(findNamespace(api, controlTitle), Option.match({ onNone: () => createNamespace(api, controlTitle), onSome: Effect.succeed })),
          (id) => [id, Option.some(id)] as const
        ))
    const valuePath = (namespaceId: string, key: string) =>
      `${account}/storage/kv/namespaces/${CloudflareApi.seg(namespaceId)}/values/${CloudflareApi.seg(key)}`

    /** Write `value` (and JSON `metadata`) under `key` of the control namespace. */
    const put = (key: string, value: string, metadata?: unknown) =>
      Effect.flatMap(control, (ns) => {
        const form = new FormData()
        form.set("value", value)
        if (metadata !== undefined) form.set("metadata", JSON.stringify(metadata))
        return Effect.asVoid(api.required({ method: "PUT", path: valuePath(ns, key), body: { form } }))
      })
    const remove = (key: string) => Effect.flatMap(control, (ns) => Effect.asVoid(api.request({ method: "DELETE", path: valuePath(ns, key) })))
    /** Every key under `prefix`, with its metadata, over the list's cursor. */
    const list = (prefix: string) =>
      Effect.flatMap(control, (ns) =>
        Effect.gen(function*() {
          const found: Array<{ readonly name: string; readonly metadata?: unknown }> = []
          let cursor: string | undefined
          do {
            const envelope = yield* api.required<ReadonlyArray<{ readonly name: string; readonly metadata?: unknown }>>({
              method: "GET",
              path: `${account}/storage/kv/namespaces/${CloudflareApi.seg(ns)}/keys`,
              query: { prefix, limit: 1000, cursor }
            })
            found.push(...(envelope.result ?? []))
            cursor = envelope.result_info?.cursor || undefined
          } while (cursor !== undefined)
          return found
        }))

    const byType = kinds(api, {
      dispatchNamespace: options.dispatchNamespace,
      compatibilityDate: options.compatibilityDate ?? "2024-09-23",
      bindings: (spec) =>
        Effect.map(control, (namespaceId) => [
          { type: "kv_namespace", name: "CORE_CONTROL", namespace_id: namespaceId },
          { type: "plain_text", name: "CORE_PLATFORM_ID", text: spec.platformId },
          { type: "plain_text", name: "CORE_ENVIRONMENT", text: spec.environment }
        ])
    })
    const kindOf = (type: string) => TYPES.has(type) ? Effect.succeed(byType[type as EdgeResourceType]) : Effect.fail(unknownType(type))

    /** The platform's account workers (not Workers for Platforms) on or off their workers.dev route. */
    const setWorkersDev = (platformId: string, enabled: boolean) =>
      options.dispatchNamespace !== undefined
        ? Effect.void
        : Effect.flatMap(list(keys.resources(platformId) + "worker:"), (entries) =>
          Effect.forEach(entries, (entry) => {
            const edgeName = (entry.metadata as IndexEntry | undefined)?.edgeName
            return edgeName === undefined
              ? Effect.void
              : Effect.asVoid(api.request({ method: "POST", path: `${account}/workers/scripts/${CloudflareApi.seg(edgeName)}/subdomain`, body: { json: { enabled } } }))
          }, { discard: true }))

    return EdgeProvider.of({
      name: "cloudflare",
      activateFeature: (feature) =>
        put(keys.feature(feature), JSON.stringify({ featureVersion: feature.featureVersion }), { featureVersion: feature.featureVersion }).pipe(
          Effect.withSpan("EdgeProviderCloudflare.activateFeature")
        ),
      deactivateFeature: (feature) => remove(keys.feature(feature)).pipe(Effect.withSpan("EdgeProviderCloudflare.deactivateFeature")),
      setPlatformStatus: (platformId, status) =>
        Effect.zipRight(put(keys.status(platformId), status), setWorkersDev(platformId, status === "active")).pipe(
          // A suspension that did not reach the edge must not pass unseen (decision 0301): the caller sees it.
          Effect.mapError((error) => new JobFailed({ message: `Cloudflare: the platform status of ${platformId} was not set: ${error.message}` })),
          Effect.withSpan("EdgeProviderCloudflare.setPlatformStatus")
        ),
      createResource: (spec) =>
        Effect.gen(function*() {
          const kind = yield* kindOf(spec.resourceType)
          const handle = yield* Effect.flatMap(kind.find(spec.edgeName), Option.match({ onNone: () => kind.create(spec), onSome: Effect.succeed }))
          const entry: IndexEntry = { resourceType: spec.resourceType, edgeName: spec.edgeName, ...handle }
          yield* put(keys.resource(spec.platformId, spec.resourceType, spec.edgeName), spec.environment, entry)
          return handle
        }).pipe(Effect.withSpan("EdgeProviderCloudflare.createResource", { attributes: { type: spec.resourceType, edgeName: spec.edgeName } })),
      deleteResource: (spec, { deleteData }) =>
        Effect.gen(function*() {
          const kind = yield* kindOf(spec.resourceType)
          if (HOLDS_DATA.has(spec.resourceType) && !deleteData) return
          const found = yield* kind.find(spec.edgeName)
          if (Option.isSome(found)) yield* kind.remove(spec.edgeName, found.value)
          yield* remove(keys.resource(spec.platformId, spec.resourceType, spec.edgeName))
        }).pipe(Effect.withSpan("EdgeProviderCloudflare.deleteResource", { attributes: { type: spec.resourceType, edgeName: spec.edgeName } })),
      listResources: (platformId) =>
        Effect.map(list(keys.resources(platformId)), (entries) =>
          entries.flatMap((entry): Array<EdgeResourceListing> => {
            const meta = entry.metadata as Partial<IndexEntry> | undefined
            return meta?.resourceType !== undefined && meta.edgeName !== undefined && meta.edgeId !== undefined
              ? [{ resourceType: meta.resourceType, edgeName: meta.edgeName, edgeId: meta.edgeId, edgeUrl: meta.edgeUrl ?? null }]
              : []
          })).pipe(Effect.withSpan("EdgeProviderCloudflare.listResources")),
      setWorkerSecret: (input) =>
        api.required({
          method: "PUT",
          path: options.dispatchNamespace === undefined
            ? `${account}/workers/scripts/${CloudflareApi.seg(input.edgeName)}/secrets`
            : `${account}/workers/dispatch/namespaces/${CloudflareApi.seg(options.dispatchNamespace)}/scripts/${CloudflareApi.seg(input.edgeName)}/secrets`,
          body: { json: { name: input.name, text: Redacted.value(input.value), type: "secret_text" } }
        }).pipe(Effect.asVoid, Effect.withSpan("EdgeProviderCloudflare.setWorkerSecret", { attributes: { edgeName: input.edgeName, name: input.name } })),
      addCustomHostname: (input) =>
        Effect.gen(function*() {
          const zoneId = yield* zoneOf(input.target)
          const path = `/zones/${CloudflareApi.seg(zoneId)}/custom_hostnames`
          const existing = yield* api.required<ReadonlyArray<CustomHostname>>({ method: "GET", path, query: { hostname: input.hostname } })
          const found = (existing.result ?? []).find((h) => h.hostname === input.hostname)
          const hostname = found ?? (yield* api.required<CustomHostname>({
            method: "POST",
            path,
            body: { json: { hostname: input.hostname, ssl: { method: "http", type: "dv" }, custom_origin_server: input.target } }
          })).result
          return { edgeId: `${zoneId}/${hostname.id}`, status: hostname.status === "active" ? "active" as const : "pending" as const }
        }).pipe(Effect.withSpan("EdgeProviderCloudflare.addCustomHostname", { attributes: { hostname: input.hostname } })),
      removeCustomHostname: (input) =>
        Effect.gen(function*() {
          const [zoneId, id, ...rest] = input.edgeId.split("/")
          if (!zoneId || !id || rest.length > 0) {
            return yield* new JobFailed({ message: `Cloudflare: ${JSON.stringify(input.edgeId)} is not a custom hostname id (<zone>/<id>)` })
          }
          yield* api.request({ method: "DELETE", path: `/zones/${CloudflareApi.seg(zoneId)}/custom_hostnames/${CloudflareApi.seg(id)}` })
        }).pipe(Effect.withSpan("EdgeProviderCloudflare.removeCustomHostname"))
    })

    /** The account's zone that holds `target`: its longest suffix of two labels or more that is a zone (decision 0302). */
    function zoneOf(target: string) {
      return Effect.gen(function*() {
        const labels = target.toLowerCase().replace(/\.$/, "").split(".")
        for (let start = 0; start <= labels.length - 2; start++) {
          const name = labels.slice(start).join(".")
          const zones = yield* api.required<ReadonlyArray<{ readonly id: string; readonly name: string }>>({
            method: "GET",
            path: "/zones",
            query: { name, "account.id": options.accountId }
          })
          const zone = (zones.result ?? []).find((z) => z.name === name)
          if (zone !== undefined) return zone.id
        }
        return yield* new JobFailed({ message: `Cloudflare: no zone of account ${options.accountId} holds ${target}` })
      })
    }
  })

interface CustomHostname {
  readonly id: string
  readonly hostname: string
  readonly status?: string
}

/** The Cloudflare edge provider with explicit settings (tests, hosts). */
export const layer = (options: CloudflareEdgeOptions): Layer.Layer<EdgeProvider> => Layer.effect(EdgeProvider, make(options))

/**
 * The edge provider configuration selects (DESIGN §7, §10; decisions 0303, 0314): Cloudflare's when
 * `CLOUDFLARE_ACCOUNT_ID` and `CLOUDFLARE_API_TOKEN` are set (worker scripts in
 * `CLOUDFLARE_DISPATCH_NAMESPACE` when that is set), else `otherwise` (the local adapter).
 * `options` are the adapter's other choices (a host's, or a test's API address).
 *
 * @example
 * Layer.provideMerge(EdgeProviderCloudflare.whenConfigured(EdgeProviderLocal))
 */
export const whenConfigured = <E, R>(
  otherwise: Layer.Layer<EdgeProvider, E, R>,
  options: Omit<Partial<CloudflareEdgeOptions>, "accountId" | "apiToken" | "dispatchNamespace"> = {}
): Layer.Layer<EdgeProvider, E, R | ProvisioningConfig> =>
  Layer.unwrapEffect(
    Effect.map(ProvisioningConfig, (config) =>
      Option.match(config.cloudflare, {
        onNone: () => otherwise,
        onSome: (cloudflare): Layer.Layer<EdgeProvider, E, R> =>
          layer({
            ...options,
            accountId: cloudflare.accountId,
            apiToken: cloudflare.apiToken,
            ...(cloudflare.dispatchNamespace === undefined ? {} : { dispatchNamespace: cloudflare.dispatchNamespace })
          })
      }))
  )
