import type { Stacks } from "@core/contracts"
import { StackRouteRefs } from "@core/contracts/routes"
import { type CallResult, routeCaller } from "../call.js"
import type { Transport } from "../transport.js"

/** Per-call options of the stack catalogue's methods. */
export interface StacksCallOptions {
  readonly signal?: AbortSignal
}

const Routes: typeof StackRouteRefs = StackRouteRefs

/**
 * The stack catalogue (`client.stacks`, `/api/v1/stacks`), one method per route of
 * `Stacks.StackRoutes` (named in each comment). Every caller reads; operators and the static key write.
 */
export interface StacksClient {
  /** `listStacks`: the active templates, each with its `latest_version`. */
  readonly list: (options?: StacksCallOptions) => Promise<CallResult<typeof Routes.listStacks>>
  /** `createStack`: a new template (`{ id }`). */
  readonly create: (input: Stacks.CreateStackTemplateRequest, options?: StacksCallOptions) => Promise<CallResult<typeof Routes.createStack>>
  /** `getStack`: a template and its latest published version (`null` when none). */
  readonly get: (name: string, options?: StacksCallOptions) => Promise<CallResult<typeof Routes.getStack>>
  /** `updateStack`: change its text, or move it between `active` and `deprecated`. */
  readonly update: (name: string, input: Stacks.UpdateStackTemplateRequest, options?: StacksCallOptions) => Promise<CallResult<typeof Routes.updateStack>>
  readonly versions: {
    /** `listStackVersions`: every version, highest semantic version first. */
    readonly list: (name: string, options?: StacksCallOptions) => Promise<CallResult<typeof Routes.listStackVersions>>
    /** `createStackVersion`: publish a version (404 unknown template, 409 version exists). */
    readonly publish: (name: string, input: Stacks.CreateStackVersionRequest, options?: StacksCallOptions) => Promise<CallResult<typeof Routes.createStackVersion>>
    /** `getStackVersion`: one version record. */
    readonly get: (name: string, version: string, options?: StacksCallOptions) => Promise<CallResult<typeof Routes.getStackVersion>>
    /** `deprecateStackVersion`: deprecate it (the route's `DELETE`). */
    readonly deprecate: (name: string, version: string, options?: StacksCallOptions) => Promise<CallResult<typeof Routes.deprecateStackVersion>>
  }
}

/** `client.stacks` on `transport`, under `basePath` (the routes' own `/api/v1/stacks` by default). */
export const stacks = (transport: Transport, basePath?: string): StacksClient => {
  const { call } = routeCaller(transport, { basePath })
  return {
    list: (options) => call(Routes.listStacks, {}, options),
    create: (input, options) => call(Routes.createStack, { body: input }, options),
    get: (name, options) => call(Routes.getStack, { params: { name } }, options),
    update: (name, input, options) => call(Routes.updateStack, { params: { name }, body: input }, options),
    versions: {
      list: (name, options) => call(Routes.listStackVersions, { params: { name } }, options),
      publish: (name, input, options) => call(Routes.createStackVersion, { params: { name }, body: input }, options),
      get: (name, version, options) => call(Routes.getStackVersion, { params: { name, version } }, options),
      deprecate: (name, version, options) => call(Routes.deprecateStackVersion, { params: { name, version } }, options)
    }
  }
}
