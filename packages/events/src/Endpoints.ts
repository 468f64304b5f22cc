import type { Events } from "@core/contracts"
import { type Caller, type Callers, CoreConfig, Crypto, Cursor, type Forbidden, Ids, type NotFound, type ValidationError } from "@core/kernel"
import { Clock, Effect, Option } from "effect"
import { EventsConfig } from "./Config.js"
import { DeliveriesRepo, toDeliveryRecord } from "./DeliveriesRepo.js"
import { type EndpointRow, EndpointsRepo } from "./EndpointsRepo.js"
import { deliveryNotFound, endpointNotFound } from "./Errors.js"
import { organizationFor } from "./Policy.js"
import { newSecret } from "./Signing.js"
import { checkTarget } from "./Targets.js"

/** An endpoint as the API answers it: never its secret. */
export const toEndpointRecord = (row: EndpointRow): Events.WebhookEndpoint => ({
  id: row.id,
  url: row.url,
  description: row.description,
  events: [...row.eventTypes],
  platformId: row.platformId,
  enabled: row.enabled,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString()
})

const keyOf = (row: { readonly createdAt: Date; readonly id: string }) => ({ createdAt: row.createdAt.toISOString(), id: row.id })
const afterOf = (cursor: string | undefined) =>
  Effect.map(Cursor.decodeOptional(Cursor.CreatedAtId, cursor), (key) => (key === undefined ? undefined : { createdAt: new Date(key.createdAt), id: key.id }))

type Failure = NotFound | Forbidden

/** An organization's webhook endpoints: create, read, change, rotate, delete, and their delivery log. */
export class Endpoints extends Effect.Service<Endpoints>()("@core/events/Endpoints", {
  effect: Effect.gen(function*() {
    const repo = yield* EndpointsRepo
    const deliveries = yield* DeliveriesRepo
    const ids = yield* Ids.Ids
    const settings = yield* EventsConfig
    const config = yield* CoreConfig
    const key = Crypto.deriveKey(config.secret, "webhook-secrets")
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    /** A secret sealed for its endpoint's row (the row id bound to it). */
    const seal = (endpointId: string, secret: string) => Crypto.encrypt(key, secret, endpointId)
    /** The secrets an attempt signs with now: the current one, and the previous one while its overlap lasts. */
    const signingSecrets = (row: EndpointRow, at: Date): Effect.Effect<ReadonlyArray<string>> =>
      Effect.orDie(Effect.all([
        Crypto.decrypt(key, row.secret, row.id),
        ...(row.previousSecret !== null && row.previousUntil !== null && row.previousUntil > at ? [Crypto.decrypt(key, row.previousSecret, row.id)] : [])
      ]))

    const owned = (caller: Caller, id: string) =>
      Effect.gen(function*() {
        const organizationId = yield* organizationFor(caller, "webhooks:manage")
        const found = yield* repo.find(organizationId, id)
        return Option.isSome(found) ? found.value : yield* Effect.fail(endpointNotFound)
      })

    const create: (caller: Caller, body: Events.CreateWebhookEndpointRequest) => Effect.Effect<Events.CreatedWebhookEndpoint, Failure | ValidationError, Callers> =
      Effect.fn("Endpoints.create")(function*(caller: Caller, body: Events.CreateWebhookEndpointRequest) {
        const organizationId = yield* organizationFor(caller, "webhooks:manage")
        yield* checkTarget(body.url, settings)
        const id = yield* ids.make("whe")
        const at = yield* now
        const secret = newSecret()
        const row = yield* repo.insert({
          id,
          organizationId,
          platformId: body.platformId ?? null,
          url: body.url,
          description: body.description ?? "",
          eventTypes: [...new Set(body.events ?? [])],
          enabled: true,
          secret: seal(id, secret),
          previousSecret: null,
          previousUntil: null,
          disabledReason: null,
          createdAt: at,
          updatedAt: at
        })
        return { ...toEndpointRecord(row), secret }
      })

    const list = Effect.fn("Endpoints.list")(function*(caller: Caller, query: { readonly cursor?: string | undefined; readonly limit: number }) {
      const organizationId = yield* organizationFor(caller, "webhooks:manage")
      const rows = yield* repo.list(organizationId, yield* afterOf(query.cursor), query.limit + 1)
      const page = Cursor.page(rows, query.limit, keyOf)
      return { ...page, data: page.data.map(toEndpointRecord) }
    })

    const read = Effect.fn("Endpoints.read")(function*(caller: Caller, id: string) {
      return toEndpointRecord(yield* owned(caller, id))
    })

    const update = Effect.fn("Endpoints.update")(function*(caller: Caller, id: string, body: Events.UpdateWebhookEndpointRequest) {
      const row = yield* owned(caller, id)
      if (body.url !== undefined) yield* checkTarget(body.url, settings)
      const enabled = body.enabled ?? row.enabled
      return toEndpointRecord(yield* repo.update({
        ...row,
        url: body.url ?? row.url,
        description: body.description ?? row.description,
        eventTypes: body.events === undefined ? row.eventTypes : [...new Set(body.events)],
        enabled,
        disabledReason: enabled ? null : row.disabledReason ?? "manual",
        updatedAt: yield* now
      }))
    })

    const remove = Effect.fn("Endpoints.remove")(function*(caller: Caller, id: string) {
      const row = yield* owned(caller, id)
      yield* repo.remove(row.organizationId, row.id)
    })

    /** A new secret; the current one becomes the previous, signing beside it for the overlap. */
    const rotate = Effect.fn("Endpoints.rotate")(function*(caller: Caller, id: string) {
      const row = yield* owned(caller, id)
      const at = yield* now
      const secret = newSecret()
      yield* repo.update({
        ...row,
        secret: seal(row.id, secret),
        previousSecret: row.secret,
        previousUntil: new Date(at.getTime() + settings.secretOverlapHours * 3_600_000),
        updatedAt: at
      })
      return { secret }
    })

    const attempts = Effect.fn("Endpoints.attempts")(function*(caller: Caller, id: string, query: { readonly cursor?: string | undefined; readonly limit: number }) {
      const row = yield* owned(caller, id)
      const rows = yield* deliveries.list(row.id, yield* afterOf(query.cursor), query.limit + 1)
      const page = Cursor.page(rows, query.limit, keyOf)
      return { ...page, data: page.data.map(toDeliveryRecord) }
    })

    /** One attempt of one of the caller's organization's endpoints. */
    const attempt = Effect.fn("Endpoints.attempt")(function*(caller: Caller, id: string) {
      const organizationId = yield* organizationFor(caller, "webhooks:manage")
      const found = yield* deliveries.find(organizationId, id)
      return Option.isSome(found) ? found.value : yield* Effect.fail(deliveryNotFound)
    })

    return { create, list, read, update, remove, rotate, attempts, attempt, owned, signingSecrets } as const
  }),
  dependencies: [EndpointsRepo.Default, DeliveriesRepo.Default]
}) {}
