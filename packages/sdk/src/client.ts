import { routeCaller, type CallableRoute, type CallInput, type CallOptions, type CallResult } from "./call.js"
import { paginate, type PaginateOptions } from "./pagination.js"
import { billing, type BillingClient } from "./resources/billing.js"
import { deploy, type DeployClient } from "./resources/deploy.js"
import { health, type HealthOptions } from "./resources/health.js"
import { iam, type IamClient } from "./resources/iam.js"
import { provisioning, type ProvisioningClient } from "./resources/provisioning.js"
import { registry, type RegistryClient } from "./resources/registry.js"
import { stacks, type StacksClient } from "./resources/stacks.js"
import { webhooks, type WebhooksClient } from "./resources/webhooks.js"
import { events, type EventsClient } from "./resources/events.js"
import { vault, type VaultClient } from "./resources/vault.js"
import { createTransport, type ClientOptions, type HttpMethod, type RequestOptions, type Transport } from "./transport.js"

export type { IamClient } from "./resources/iam.js"

/** What every client has, whatever its namespaces: raw requests, any catalogued route, paging, health. */
export interface BaseClient {
  /** Sends one request and returns its JSON (or text) body, validated by `schema` when given. */
  readonly request: <T = unknown>(method: HttpMethod, path: string, options?: RequestOptions<T>) => Promise<T>
  /**
   * Calls any catalogued route, typed from its declaration: `params` (filling the path's
   * placeholders, URL-encoded), `query`, `body` (form-encoded when the route's first content type
   * is), and `headers`. The path goes under its service's gateway prefix (`/api/v1/iam` for an
   * identity route; `options.basePath` overrides it). Resolves to the success body (`undefined` for
   * 204); failures are the `CoreApiError` subclasses, coded from better-auth and OAuth bodies too.
   *
   * `route` is a ref from `@core/sdk/routes` (no zod: what a browser or worker should use),
   * or a declaration (`RouteSpec`) itself, e.g. from `@core/sdk/contracts` where zod is loaded anyway.
   *
   * @example
   * import { AccountRouteRefs, AuthorizationRouteRefs } from "@core/sdk/routes"
   * const session = await client.call(AccountRouteRefs.getSession, {})
   * await client.call(AuthorizationRouteRefs.deleteGrant, { params: { id: "grt_1" } })
   */
  readonly call: <T extends CallableRoute>(route: T, input: CallInput<T>, options?: CallOptions) => Promise<CallResult<T>>
  /** Iterates over every item of a cursor-paged list. */
  readonly paginate: <T>(path: string, options?: PaginateOptions<T>) => AsyncGenerator<T, void, undefined>
  /** `GET /health`: the server's liveness answer as text (`"ok"`). */
  readonly health: (options?: HealthOptions) => Promise<string>
}

/** A service namespace's factory (`iam`, `registry`, … exported by `@core/sdk`): the namespace on a client's transport. */
export type Namespace<T = unknown> = (transport: Transport) => T

/** Namespace factories by the name they take on the client (`{ registry }` → `client.registry`). */
export type Namespaces = Readonly<Record<string, Namespace>>

/** A client with the namespaces `N`. */
export type ClientWith<N extends Namespaces> = BaseClient & { readonly [K in keyof N]: ReturnType<N[K]> }

/**
 * Creates a client with only the namespaces it is given, so a bundler leaves the others out (the
 * browser bundle of `createCoreClient` with `registry` alone is about half of `createClient`'s).
 * Same options, retries, timeouts, idempotency keys and errors as `createClient`.
 *
 * @example
 * import { createCoreClient, registry } from "@core/sdk"
 * const core = createCoreClient({ baseUrl: "http://localhost:8787", token }, { registry })
 * for await (const platform of core.registry.platforms.all()) console.log(platform.slug)
 */
export const createCoreClient = <const N extends Namespaces = {}>(options: ClientOptions, namespaces: N = {} as N): ClientWith<N> => {
  const transport = createTransport(options)
  const base: BaseClient = {
    request: transport.request,
    call: routeCaller(transport).call,
    paginate: (path, paginateOptions) => paginate(transport, path, paginateOptions),
    health: health(transport)
  }
  // Each factory gets the transport alone (a resource's optional `basePath` keeps its default).
  const built = Object.fromEntries(Object.entries(namespaces).map(([name, make]) => [name, make(transport)]))
  for (const name of Object.keys(built)) {
    if (name in base) throw new TypeError(`A namespace cannot be named ${JSON.stringify(name)}: the client has that method`)
  }
  return { ...built, ...base } as ClientWith<N>
}

/**
 * A client of one Core deployment with every service's namespace (`client.iam`, `client.registry`,
 * …), each one file under `resources/`, built on the same transport.
 */
export interface CoreClient extends BaseClient {
  /** The identity service through the gateway (`/api/v1/iam/...`). */
  readonly iam: IamClient
  /** The stack catalogue through the gateway (`/api/v1/stacks/...`). */
  readonly stacks: StacksClient
  /** The platform registry through the gateway (`/api/v1/platforms/...`). */
  readonly registry: RegistryClient
  /** Provisioning through the gateway (`/api/v1/provisioning/...`): jobs (read, watch live, retry, cancel), the dead letters, the job-creating routes, custom domains. */
  readonly provisioning: ProvisioningClient
  /** The command-line backend through the gateway (`/api/v1/cli/...`): repositories, deploys, secrets. */
  readonly deploy: DeployClient
  /** The vault tool server through the gateway (`/mcp`): search and read Core's architecture docs. */
  readonly vault: VaultClient
  /** Billing through the gateway (`/api/v1/billing/...`): plans, subscription, invoices, payments, the upgrade, operator tools. */
  readonly billing: BillingClient
  /** Outbound webhooks (`/api/v1/webhooks/...`): endpoints, their signing secrets, delivery log, replay and retry. */
  readonly webhooks: WebhooksClient
  /** The organization's events (`/api/v1/events/...`): list and read them, and follow them live (`stream`, resuming after a dropped connection). */
  readonly events: EventsClient
}

/**
 * Creates a client with every namespace. Retries 429 and 503 answers (and connection failures of
 * idempotent methods) with jittered exponential backoff that honours `Retry-After`; times out each
 * attempt after 30 s; sends an `Idempotency-Key` with every POST and PATCH. Where bundle size
 * matters, `createCoreClient` takes only the namespaces used.
 *
 * @example
 * import { createClient, NotFoundError } from "@core/sdk"
 * const core = createClient({ baseUrl: "http://localhost:8787", apiKey: process.env.CORE_API_KEY })
 * console.log(await core.health())
 */
export const createClient = (options: ClientOptions): CoreClient =>
  createCoreClient(options, { iam, stacks, registry, provisioning, billing, vault, deploy, webhooks, events })
