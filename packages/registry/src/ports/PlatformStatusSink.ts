import { Context, type Effect } from "effect"

/**
 * Where the registry tells the rest of Core whether a platform's callers are served: identity's
 * platform status, read by the gateway (451 `PLATFORM_SUSPENDED`). The registry publishes
 * `suspended` when a platform becomes suspended or deleted (or is cancelled while suspended), and
 * `active` when it is served again, inside the change's transaction. Without one (tests, a
 * registry without identity) nothing is published. The all-in-one server provides it
 * (`@core/server`'s `PlatformStatusSinkLive`).
 */
export class PlatformStatusSink extends Context.Tag("@core/registry/PlatformStatusSink")<PlatformStatusSink, {
  readonly publish: (platformId: string, status: "active" | "suspended", updatedBy: string) => Effect.Effect<void>
}>() {}
