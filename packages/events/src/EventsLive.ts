import { Ids } from "@core/kernel"
import { Layer } from "effect"
import { EventsConfig } from "./Config.js"
import { DeliveriesRepo } from "./DeliveriesRepo.js"
import { Endpoints } from "./Endpoints.js"
import { EndpointsRepo } from "./EndpointsRepo.js"
import { EventFeed } from "./EventFeed.js"
import { EventLog } from "./EventLog.js"
import { EventsRepo } from "./EventsRepo.js"
import { OutboxLive } from "./Outbox.js"
import { Redelivery } from "./Redelivery.js"
import { Relay, RelayLive } from "./Relay.js"

/**
 * The events service's use cases and repositories, over the process's `SqlClient`, `CoreConfig`,
 * `Ids` and `EventsConfig` (the routes' services and the in-process `EventFeed`; no relay).
 */
export const EventsServices = Layer.mergeAll(EventLog.Default, EventFeed.Default, Redelivery.Default, Relay.Default, OutboxLive).pipe(
  Layer.provideMerge(Endpoints.Default),
  Layer.provideMerge(Layer.mergeAll(EventsRepo.Default, EndpointsRepo.Default, DeliveriesRepo.Default))
)

/**
 * The whole service over the host's `EventsConfig` (a server reads it with every domain's settings,
 * from the environment it was given): its use cases and the relay running in the layer's scope.
 */
export const EventsLiveWithoutConfig = RelayLive.pipe(Layer.provideMerge(EventsServices), Layer.provideMerge(Ids.layer))

/**
 * The whole service: its use cases and the relay running in the layer's scope, reading its
 * settings from the environment (`EventsConfig.layerConfig`).
 */
export const EventsLive = EventsLiveWithoutConfig.pipe(Layer.provideMerge(EventsConfig.layerConfig))
