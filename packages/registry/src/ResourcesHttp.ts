import { Registry } from "@core/contracts"
import { Route } from "@core/kernel"
import type { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { DnsRecords } from "./DnsRecords.js"
import { resourceEtagOf, Resources, toResourceRecord } from "./Resources.js"
import type { ResourceRow } from "./ResourcesRepo.js"
import { Secrets } from "./Secrets.js"

/** A resource answered with its `ETag`. */
const withEtag = (row: ResourceRow, status = 200) => Route.json(toResourceRecord(row), { status, headers: { etag: resourceEtagOf(row) } })

const ifMatchOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => request.headers["if-match"]

/** A page as its contract answers it (a fresh array). */
const pageOf = <A>(page: { readonly data: ReadonlyArray<A>; readonly pagination: Registry.ResourcePage["pagination"] }) => ({
  data: [...page.data],
  pagination: page.pagination
})

/**
 * The six resource routes of one path family (`Registry.ResourceRoutes` under `/api/v1/platforms`,
 * `Registry.ResourceFamilyRoutes` under `/api/v1/resources`): the same handlers, the same answers.
 */
const resourceHandlers = (routes: typeof Registry.ResourceRoutes | typeof Registry.ResourceFamilyRoutes) => [
  Route.handle(routes.listResources, ({ caller, params, query }) =>
    Effect.gen(function*() {
      const resources = yield* Resources
      const page = yield* resources.list(caller, params.platformId, query)
      return pageOf({ data: page.data.map(toResourceRecord), pagination: page.pagination })
    })),
  Route.handle(routes.listEntityResources, ({ caller, params, query }) =>
    Effect.gen(function*() {
      const resources = yield* Resources
      const page = yield* resources.listForEntity(caller, params.platformId, params.entityId, query)
      return pageOf({ data: page.data.map(toResourceRecord), pagination: page.pagination })
    })),
  Route.handle(routes.createResource, ({ body, caller, params }) =>
    Effect.gen(function*() {
      const resources = yield* Resources
      return withEtag(yield* resources.create(caller, params.platformId, params.entityId, body), 201)
    })),
  Route.handle(routes.getResource, ({ caller, params }) =>
    Effect.gen(function*() {
      const resources = yield* Resources
      return withEtag(yield* resources.get(caller, params.platformId, params.resourceId))
    })),
  Route.handle(routes.updateResource, ({ body, caller, params, request }) =>
    Effect.gen(function*() {
      const resources = yield* Resources
      return withEtag(yield* resources.update(caller, params.platformId, params.resourceId, body, ifMatchOf(request)))
    })),
  Route.handle(routes.deleteResource, ({ caller, params }) =>
    Effect.gen(function*() {
      const resources = yield* Resources
      yield* resources.remove(caller, params.platformId, params.resourceId)
      return { success: true as const }
    }))
]

const lookupHandler = (route: typeof Registry.LookupRoutes.lookupResource | typeof Registry.ResourceFamilyRoutes.lookupResource) =>
  Route.handle(route, ({ caller, query }) =>
    Effect.gen(function*() {
      const resources = yield* Resources
      return withEtag(yield* resources.lookup(caller, query.edgeName))
    }))

/**
 * The registry's resource, DNS record and secret routes: both resource path families, both
 * lookups, one `handle` per catalogued route.
 */
export const ResourceHandlers = [
  ...resourceHandlers(Registry.ResourceRoutes),
  ...resourceHandlers(Registry.ResourceFamilyRoutes),
  lookupHandler(Registry.LookupRoutes.lookupResource),
  lookupHandler(Registry.ResourceFamilyRoutes.lookupResource),
  Route.handle(Registry.DnsRecordRoutes.listDnsRecords, ({ caller, params, query }) =>
    Effect.gen(function*() {
      const dns = yield* DnsRecords
      return pageOf(yield* dns.list(caller, params.platformId, query))
    })),
  Route.handle(Registry.DnsRecordRoutes.createDnsRecord, ({ body, caller, params }) =>
    Effect.gen(function*() {
      const dns = yield* DnsRecords
      return Route.json(yield* dns.create(caller, params.platformId, body), { status: 201 })
    })),
  Route.handle(Registry.DnsRecordRoutes.getDnsRecord, ({ caller, params }) =>
    Effect.gen(function*() {
      const dns = yield* DnsRecords
      return yield* dns.get(caller, params.platformId, params.recordId)
    })),
  Route.handle(Registry.DnsRecordRoutes.deleteDnsRecord, ({ caller, params }) =>
    Effect.gen(function*() {
      const dns = yield* DnsRecords
      yield* dns.remove(caller, params.platformId, params.recordId)
      return { success: true as const }
    })),
  Route.handle(Registry.SecretRoutes.listResourceSecrets, ({ caller, params, query }) =>
    Effect.gen(function*() {
      const secrets = yield* Secrets
      return pageOf(yield* secrets.list(caller, params.platformId, params.resourceId, query))
    })),
  Route.handle(Registry.SecretRoutes.setResourceSecret, ({ body, caller, params }) =>
    Effect.gen(function*() {
      const secrets = yield* Secrets
      const { record, created } = yield* secrets.set(caller, params.platformId, params.resourceId, params.secretName, body.value)
      return Route.json(record, { status: created ? 201 : 200 })
    })),
  Route.handle(Registry.SecretRoutes.deleteResourceSecret, ({ caller, params }) =>
    Effect.gen(function*() {
      const secrets = yield* Secrets
      yield* secrets.remove(caller, params.platformId, params.resourceId, params.secretName)
      return { success: true as const }
    }))
]
