import { routeCaller } from "../call.js"
import { type EventsClient, eventsMethods } from "../generated/events.js"
import type { Transport } from "../transport.js"

export type { EventsCallOptions, EventsClient } from "../generated/events.js"

/** `client.events` on `transport`, under `basePath` (the routes' own `/api/v1/events` by default). */
export const events = (transport: Transport, basePath?: string): EventsClient => eventsMethods(routeCaller(transport, { basePath }))
