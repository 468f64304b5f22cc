import type { HttpApp } from "@effect/platform"
import type { SqlClient } from "@effect/sql"
import type { Routes } from "@core/gateway"
import { HttpUpstream, Upstream } from "@core/gateway"
import { GatewayIdentity, IdentityHandlers, IdentityLive } from "@core/auth"
import { CliService, EventsService, IdentityService, ProvisioningService, RegistryService, SERVICE_DECLARATIONS, type ServiceName, StacksService, VaultService } from "@core/contracts"
import { type Configuration, CoreConfig, ForwardedCallers, ForwardedIdentity, Ids, Route } from "@core/kernel"
import { DnsTargetsLive, FeatureRecordsLive, Features, OnboardingFlowsLive, OnboardingRepo, Onboarding, PlatformDirectoryLive, Platforms, RegistryHandlers, RegistryJobs, RegistryServices } from "@core/registry"
import { EdgeProviderLocal, JobCreation, JobHandlers, JobQueue, PlatformStatuses, ProvisioningHandlers, ProvisioningJobs, Worker } from "@core/provisioning"
import { EdgeProviderCloudflare } from "@core/provisioning"
import { JobApiLive } from "@core/provisioning"
import { Domains, ResourceHours } from "@core/provisioning"
import { LiveResourcesLive } from "@core/registry"
import { ResourcesLive } from "@core/registry"
import { Catalogue, StacksHandlers } from "@core/stacks"
import { DeployHandlers, DeployJobs, DeployLive } from "@core/deploy"
import { VaultHandlers, VaultLive } from "@core/vault"
import { EventsHandlers, EventsLiveWithoutConfig, EventsServices, WebhookJobsLive } from "@core/events"
import { Context, Duration, Effect, Layer } from "effect"
import { OnboardingOrganizationsLive } from "./OnboardingOrganizationsLive.js"
import { PlatformSetupLive } from "./PlatformSetupLive.js"
import { StackDefinitionsLive } from "./StackDefinitionsLive.js"
import { AuditTrailLive } from "./AuditTrailLive.js"
import { billing } from "./BillingService.js"
import { EventOutboxLive } from "./EventOutboxLive.js"
import { implement, type ServiceDefinition, type ServiceRequirements } from "./ServiceDefinition.js"
import { PlatformCreatedLive } from "./PlatformCreatedLive.js"
import { PlatformBillingContactLive } from "./PlatformBillingContactLive.js"
import { PlatformStatusSinkLive } from "./PlatformStatusSinkLive.js"
import { UsageIngestLive } from "./UsageIngestLive.js"
import { BuildReporterLive, UsageReporterLive } from "./UsageReportingLive.js"
import type { DomainSettings } from "./Settings.js"

export { implement, type ServiceDefinition, type ServiceRequirements } from "./ServiceDefinition.js"

/**
 * The context a service's handlers run in: its layer built once (its services live as long as the
 * surrounding scope, the server), with the process's database and configuration.
 */
const contextOf = (service: ServiceDefinition): Effect.Effect<Context.Context<never>, never, ServiceRequirements> =>
  Effect.gen(function*() {
    const outer = yield* Effect.context<SqlClient.SqlClient | CoreConfig | DomainSettings>()
    const built = yield* Layer.build(service.layer).pipe(Effect.orDie)
    return Context.merge(outer, built) as Context.Context<never>
  })

/**
 * Events and outbound webhooks (`/api/v1/webhooks`, `/api/v1/events`): the endpoints, the event
 * list and stream, the in-process feed, and the relay that fans events out as `webhook.deliver`
 * jobs (run by the provisioning worker, registered below). Its settings (`CORE_WEBHOOKS_*`) are
 * read with every domain's, from the environment the server or the embedding host was given.
 */
const events = implement(EventsService, {
  handlers: EventsHandlers,
  layer: Layer.mergeAll(EventsLiveWithoutConfig, ForwardedCallers.layer)
})

/** The identity service: accounts, sessions, organizations, authorization, keys, audit. */
const iam = implement(IdentityService, {
  handlers: IdentityHandlers,
  layer: IdentityLive.pipe(Layer.provide(PlatformSetupLive), Layer.provideMerge(EventOutboxLive), Layer.provideMerge(Ids.layer))
})

/**
 * The registry: platforms. It sits behind the gateway, which signs the caller for it
 * (`ForwardedCallers`: no identity database needed, in process or alone with `serve --service registry`).
 * Its suspensions reach identity's platform status on a shared database (`PlatformStatusSinkLive`).
 */
const registry = implement(RegistryService, {
  handlers: RegistryHandlers,
  layer: RegistryServices.pipe(
    // An onboarded platform is its user's new organization's (decision 0576).
    Layer.provide(Layer.mergeAll(StackDefinitionsLive, OnboardingOrganizationsLive)),
    Layer.provideMerge(Layer.mergeAll(Layer.fresh(Platforms.Default).pipe(Layer.provide(PlatformStatusSinkLive), Layer.provide(PlatformCreatedLive)), ForwardedCallers.layer)),
    Layer.provideMerge(EventOutboxLive),
    Layer.provideMerge(Ids.layer)
  )
})

/**
 * The stack catalogue: templates and versions, platform-wide. Behind the gateway like the registry
 * (`ForwardedCallers`), in process or alone with `serve --service stacks`.
 */
const stacks = implement(StacksService, {
  handlers: StacksHandlers,
  layer: Layer.mergeAll(Catalogue.Default, ForwardedCallers.layer).pipe(Layer.provideMerge(Ids.layer))
})

/**
 * Provisioning's onboard route over the registry's onboarding (decision 0575): the flow, its user's
 * organization and platform (billing told at once), its job, on the shared database.
 */
const onboardingFlows = OnboardingFlowsLive.pipe(
  Layer.provide(Onboarding.DefaultWithoutDependencies),
  Layer.provide(Layer.mergeAll(
    OnboardingRepo.Default,
    StackDefinitionsLive,
    OnboardingOrganizationsLive,
    Layer.fresh(Platforms.Default).pipe(Layer.provide(PlatformCreatedLive))
  ))
)

/**
 * The job types of each owner, merged once (decision 0673): provisioning's own (`auth.upgrade`,
 * `domain.add`, the test types when enabled), the registry's (resources, features, onboarding) and
 * deploy's (`deploy.site`). The worker runs them; the operator controls settle through them.
 */
const jobHandlers = JobHandlers.merge(
  ProvisioningJobs,
  RegistryJobs,
  DeployJobs,
  // An endpoint disabled after failing for days is an entry in identity's audit log.
  WebhookJobsLive.pipe(Layer.provide(AuditTrailLive), Layer.provide(EventsServices))
)

/**
 * Provisioning: the job routes and `/internal/platform-status`, and the worker that runs the jobs
 * (it lives in the services' scope: started with them, its jobs given back when the server stops,
 * before the database closes; decision 0200). The jobs reach the registry and billing through the
 * ports bound below, on the shared database.
 */
const provisioning = implement(ProvisioningService, {
  handlers: ProvisioningHandlers,
  layer: Layer.mergeAll(
    JobQueue.Default,
    JobApiLive,
    JobCreation.Default,
    onboardingFlows,
    FeatureRecordsLive,
    Domains.Default,
    PlatformStatuses.Default,
    // Resource-hours to billing's metering, hour by hour (decision 0465).
    ResourceHours.layer(),
    Worker.layerConfig()
  ).pipe(
    Layer.provideMerge(jobHandlers),
    Layer.provideMerge(Layer.mergeAll(
      PlatformDirectoryLive,
      DnsTargetsLive,
      LiveResourcesLive,
      StackDefinitionsLive,
      // An onboarding's billing email becomes its platform's customer's (decision 0578).
      PlatformBillingContactLive,
      UsageReporterLive,
      BuildReporterLive
    )),
    Layer.provide(UsageIngestLive),
    Layer.provideMerge(ForwardedCallers.layer),
    Layer.provideMerge(EdgeProviderCloudflare.whenConfigured(EdgeProviderLocal)),
    Layer.provideMerge(EventOutboxLive),
    Layer.provideMerge(Ids.layer)
  )
})

/**
 * The vault tool server: MCP at `/mcp` (docs/vault-server.md), behind the gateway, which authenticates the
 * caller and signs it for the vault (`ForwardedCallers`), in process or alone with
 * `serve --service vault`. It reads `CORE_VAULT_DIR` (default: this repository's `docs/vault/`).
 */
const vault = implement(VaultService, {
  handlers: VaultHandlers,
  layer: Layer.mergeAll(VaultLive, ForwardedCallers.layer)
})

/**
 * The command-line backend (`/api/v1/cli`): repositories, features, deploys, secrets. Behind the
 * gateway (`ForwardedCallers`), in process or alone with `serve --service cli`; its deployments run
 * as the provisioning worker's `deploy.site` jobs (deploy's `DeployJobs`, merged above).
 */
const cli = implement(CliService, {
  handlers: DeployHandlers,
  layer: DeployLive.pipe(
    // Secrets are set on the platform's worker at the edge too (decision 0490).
    Layer.provide(Layer.mergeAll(ResourcesLive, Features.DefaultWithoutDependencies, EdgeProviderCloudflare.whenConfigured(EdgeProviderLocal))),
    Layer.provideMerge(Layer.mergeAll(Platforms.Default.pipe(Layer.provide(PlatformStatusSinkLive)), ForwardedCallers.layer)),
    // A rollback records `deployment.rolled_back` in its transaction.
    Layer.provideMerge(EventOutboxLive),
    Layer.provideMerge(Ids.layer)
  )
})

/**
 * How this build implements each declared service: one entry per name of `SERVICE_DECLARATIONS`
 * (`@core/contracts`), which the type demands, so a declared service cannot go unbuilt.
 */
const IMPLEMENTATIONS: { readonly [Name in ServiceName]: ServiceDefinition } = { iam, registry, stacks, provisioning, billing, vault, cli, events }

/** The services of this build, in their declarations' order. */
export const SERVICES: ReadonlyArray<ServiceDefinition> = SERVICE_DECLARATIONS.map((declaration) => IMPLEMENTATIONS[declaration.name])

/** The definition named `name`, if this build has it. */
export const find = (name: string): ServiceDefinition | undefined =>
  SERVICES.find((service) => service.name === name.toLowerCase())

const trustOf = (service: ServiceDefinition, config: Configuration) => ({
  key: ForwardedIdentity.keyFrom(config.secret),
  audience: service.name
})

/**
 * A service's app as it runs behind the gateway, in process or alone: it sees only the identity
 * headers the gateway signed for it (a forged `X-Core-User-Id` never reaches it).
 */
export const trustedApp = (service: ServiceDefinition): Effect.Effect<HttpApp.Default<unknown>, never, ServiceRequirements> =>
  Effect.map(trustedService(service), ({ app }) => app)

/**
 * A service's app as `trustedApp` builds it, with the context it was built in: its services, for a
 * host that uses them in process too (`Embedded`'s event feed).
 */
export const trustedService = (
  service: ServiceDefinition
): Effect.Effect<{ readonly app: HttpApp.Default<unknown>; readonly context: Context.Context<never> }, never, ServiceRequirements> =>
  Effect.gen(function*() {
    const config = yield* CoreConfig
    const context = yield* contextOf(service)
    const app = Effect.provide(Route.router(service.handlers, service.base === undefined ? {} : { base: service.base }), context)
    return { app: ForwardedIdentity.guard(app as HttpApp.Default<unknown>, trustOf(service, config)) as HttpApp.Default<unknown>, context }
  })

/**
 * The gateway's upstreams: over HTTP for each service with a `CORE_UPSTREAM_<SERVICE>_URL`
 * (keep-alive pools closed with the scope), in process for every other service of this build — its
 * handlers on @core/http's Node runner for the gateway's Node listener (docs/architecture.md), as an app for
 * the Effect transport.
 */
export const upstreams = (
  onError?: (service: Routes.ServiceName, kind: "unavailable" | "timeout") => void
): Effect.Effect<ReadonlyArray<Upstream.Upstream>, never, ServiceRequirements> =>
  Effect.gen(function*() {
    const config = yield* CoreConfig
    const remote = yield* HttpUpstream.makeAll(config.upstreams, {
      timeout: Duration.millis(config.upstreamTimeoutMs),
      trustProxy: config.trustProxy,
      ...(onError === undefined ? {} : { onError })
    })
    const local = yield* Effect.forEach(
      SERVICES.filter((service) => !remote.some((upstream) => upstream.service === service.upstream)),
      (service) =>
        Effect.gen(function*() {
          // A turn of the event loop before each service is built: building one is a block of work
          // that would otherwise join the next into one stall while the server starts (decision 0210).
          yield* Effect.sleep(0)
          const context = yield* contextOf(service)
          // The identity service in process answers the gateway's credential checks as values.
          const identity = service.upstream === "IAM" ? { identity: yield* (GatewayIdentity.make as Effect.Effect<GatewayIdentity.GatewayIdentity>).pipe(Effect.provide(context)) } : {}
          const options = { ...(service.base === undefined ? {} : { base: service.base }), trust: trustOf(service, config), ...identity }
          return yield* (Upstream.fromHandlers(service.upstream, service.handlers, options) as Effect.Effect<
            Upstream.Upstream,
            never,
            never
          >).pipe(Effect.provide(context))
        })
    )
    return [...remote, ...local]
  })
