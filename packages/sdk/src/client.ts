import { routeCaller, type CallableRoute, type CallInput, type CallOptions, type CallResult } from "./call.js"
import { paginate, type PaginateOptions } from "./pagination.js"
import { health, type HealthOptions } from "./resources/health.js"
import { iamAccounts, type IamAccounts } from "./resources/iam-accounts.js"
import { iamAuthorization, type IamAuthorization } from "./resources/iam-authorization.js"
import { iamDevice, type IamDevice } from "./resources/iam-device.js"
import { iamOrganizations, type IamOrganizations } from "./resources/iam-organizations.js"
import { provisioning, type ProvisioningClient } from "./resources/provisioning.js"
import { registry, type RegistryClient } from "./resources/registry.js"
import { stacks, type StacksClient } from "./resources/stacks.js"
import { deploy, type DeployClient } from "./resources/deploy.js"
import { vault, type VaultClient } from "./resources/vault.js"
import { billing, type BillingClient } from "./resources/billing.js"
import { createTransport, type ClientOptions, type HttpMethod, type RequestOptions } from "./transport.js"

/** The identity service's namespace (`client.iam`): accounts and sessions, organizations, authorization, device login. */
export type IamClient = IamAccounts & IamAuthorization & IamOrganizations & IamDevice

/**
 * A client of one Core deployment. Each service's namespace (`client.iam`, `client.platforms`, …)
 * is one file under `resources/`, built on the same transport.
 */
export interface CoreClient {
  /** Sends one request and returns its JSON (or text) body, validated by `schema` when given. */
  readonly request: <T = unknown>(method: HttpMethod, path: string, options?: RequestOptions<T>) => Promise<T>
  /**
   * Calls any catalogued route, typed from its declaration: `params` (filling the path's
   * placeholders, URL-encoded), `query`, `body` (form-encoded when the route's first content type
   * is), and `headers`. The path goes under its service's gateway prefix (`/api/v1/iam` for an
   * identity route; `options.basePath` overrides it). Resolves to the success body (`undefined` for
   * 204); failures are the `CoreApiError` subclasses, coded from better-auth and OAuth bodies too.
   *
   * `route` is a ref from `@core/contracts/routes` (no zod: what a browser or worker should use),
   * or a declaration (`RouteSpec`) itself, e.g. from `@core/contracts` where zod is loaded anyway.
   *
   * @example
   * import { AccountRouteRefs, AuthorizationRouteRefs } from "@core/contracts/routes"
   * const session = await client.call(AccountRouteRefs.getSession, {})
   * await client.call(AuthorizationRouteRefs.deleteGrant, { params: { id: "grt_1" } })
   */
  readonly call: <T extends CallableRoute>(route: T, input: CallInput<T>, options?: CallOptions) => Promise<CallResult<T>>
  /** Iterates over every item of a cursor-paged list. */
  readonly paginate: <T>(path: string, options?: PaginateOptions<T>) => AsyncGenerator<T, void, undefined>
  /** `GET /health` as text. */
  readonly health: (options?: HealthOptions) => Promise<string>
  /** The identity service through the gateway (`/api/v1/iam/...`). */
  readonly iam: IamClient
  /** The stack catalogue through the gateway (`/api/v1/stacks/...`). */
  readonly stacks: StacksClient
  /** The platform registry through the gateway (`/api/v1/platforms/...`). */
  readonly registry: RegistryClient
  /** Provisioning jobs through the gateway (`/api/v1/provisioning/...`): read, watch live, retry, cancel; the dead letters; the job-creating routes. */
  readonly provisioning: ProvisioningClient
  /** The command-line backend through the gateway (`/api/v1/cli/...`): repositories, deploys, secrets. */
  readonly deploy: DeployClient
  /** The vault tool server through the gateway (`/mcp`): search and read Core's architecture docs. */
  readonly vault: VaultClient
  /** Billing through the gateway (`/api/v1/billing/...`): plans, subscription, invoices, payments, the upgrade, operator tools. */
  readonly billing: BillingClient
}

/**
 * Creates a client. Retries 429 and 503 answers (and connection failures of idempotent methods)
 * with jittered exponential backoff that honours `Retry-After`; times out each attempt after 30 s;
 * sends an `Idempotency-Key` with every POST and PATCH.
 *
 * @example
 * import { createClient, NotFoundError } from "@core/sdk"
 * const core = createClient({ baseUrl: "http://localhost:8787", apiKey: process.env.CORE_API_KEY })
 * console.log(await core.health())
 */
export const createClient = (options: ClientOptions): CoreClient => {
  const transport = createTransport(options)
  return {
    request: transport.request,
    call: routeCaller(transport).call,
    paginate: (path, paginateOptions) => paginate(transport, path, paginateOptions),
    health: health(transport),
    iam: { ...iamAccounts(transport), ...iamAuthorization(transport), ...iamOrganizations(transport), ...iamDevice(transport) },
    stacks: stacks(transport),
    registry: registry(transport),
    provisioning: provisioning(transport),
    billing: billing(transport),
    vault: vault(transport),
    deploy: deploy(transport)
  }
}
