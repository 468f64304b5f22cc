import type { Events } from "@core/contracts"
import { Context, Effect, Option } from "effect"

/** An event a domain records with its change: the type, whose it is, and `data` as the API answers it after the change. */
export interface NewEvent<T extends Events.EventType = Events.EventType> {
  readonly type: T
  readonly organizationId: string
  readonly platformId?: string | null
  readonly data: Events.EventData<T>
}

/** Any new event, its `data` checked against its own type's schema (one member per type, told apart by `type`). */
export type AnyNewEvent = { [T in Events.EventType]: NewEvent<T> }[Events.EventType]

/**
 * Where a domain records the events of its changes (the transactional outbox, docs/webhooks.md):
 * called inside the change's own `withTransaction`, the event row is written on that transaction's
 * connection, so a change that commits has its event and a rolled-back one has none. `@core/events`
 * implements it (`OutboxLive`); without one (a domain's own tests, a domain alone) nothing is recorded.
 */
export class EventOutbox extends Context.Tag("@core/kernel/EventOutbox")<EventOutbox, {
  readonly record: (event: AnyNewEvent) => Effect.Effect<void>
}>() {}

/**
 * Record `event` in the current transaction when an outbox is provided, else do nothing.
 *
 * @example
 * yield* sql.withTransaction(Effect.gen(function*() {
 *   const row = yield* repo.insert(...)
 *   yield* EventOutbox.record({ type: "tenant.created", organizationId, platformId, data: toRecord(row) })
 * }))
 */
export const record = <T extends Events.EventType>(event: NewEvent<T>): Effect.Effect<void> =>
  Effect.flatMap(Effect.serviceOption(EventOutbox), (outbox) => (Option.isSome(outbox) ? outbox.value.record(event as AnyNewEvent) : Effect.void))
