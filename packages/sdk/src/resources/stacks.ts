import { routeCaller } from "../call.js"
import { stacksMethods, type StacksClient } from "../generated/stacks.js"
import type { Transport } from "../transport.js"

export type { StacksCallOptions, StacksClient, StacksVersions } from "../generated/stacks.js"

/** `client.stacks` on `transport`, under `basePath` (the routes' own `/api/v1/stacks` by default). */
export const stacks = (transport: Transport, basePath?: string): StacksClient => stacksMethods(routeCaller(transport, { basePath }))
