/**
 * What `scripts/generate-sdk.ts` generates: for each SDK namespace, its groups (`client.registry.platforms`)
 * and each method's name and route. Everything else about a method comes from the catalogue: its HTTP
 * method and path, its positional arguments (the path's placeholders in order, then the query when
 * the route has one, then the body when it has one), their types and its doc comment (the route's
 * summary). A method whose shape is special (an option that becomes a query, a body built from
 * one argument) is written by hand in the namespace's resource file; its entry here gives only its
 * signature, so the generated interface still lists it.
 *
 * A service whose name is in no entry (and not in `HAND_WRITTEN`) gets a namespace of its own,
 * one method per route named after the route: a new service is in the SDK once it is declared.
 */

/** One generated method: its route (`Catalogue.route`, by the names `@core/contracts/routes` exports). */
export interface MethodBinding {
  /** `PlatformRouteRefs.listPlatforms`: the ref table and the route's name in it. */
  readonly route: string
  /** Every page of a cursor-paged list (`AsyncGenerator` of its items), not one. */
  readonly pages?: true
  /** A sentence after the route's summary: what the SDK adds (`for await`) or what the caller should know. */
  readonly note?: string
  /** The query is this one field, a positional argument (`lookup(edgeName)`). */
  readonly queryField?: string
  /** The body is this one field, a positional argument (`set(…, value)`). */
  readonly bodyField?: string
  /** Written by hand in the resource file: the method's type, as the generated interface declares it. */
  readonly signature?: string
}

/** A group of methods (`client.registry.platforms`): its interface and its methods, in order. */
export interface GroupBinding {
  /** The exported interface (`RegistryPlatforms`); a group that shares another's interface names it and sets `sharesInterface`. */
  readonly interface: string
  readonly sharesInterface?: true
  readonly doc: string
  readonly methods: Readonly<Record<string, string | MethodBinding>>
}

/** One namespace of the SDK (`client.registry`). */
export interface NamespaceBinding {
  /** The service of `ServiceDeclarations.ts` whose catalogues it serves. */
  readonly service: string
  /** The namespace's per-call options type, declared in the generated file. */
  readonly options: { readonly name: string; readonly type: string; readonly doc: string }
  /** Type names the hand-written signatures use, imported from the resource file. */
  readonly handTypes?: ReadonlyArray<string>
  /** The groups, by their property name on the namespace; `""` puts the methods on the namespace itself. */
  readonly groups: Readonly<Record<string, GroupBinding>>
  /**
   * Routes of the service the namespace does not call, each with the reason (the web pages, the
   * service-to-service hooks).
   */
  readonly notServed?: Readonly<Record<string, string>>
}

/** The namespaces still written by hand, whole (their routes' special shapes: streaming, uploads, forms, MCP). */
export const HAND_WRITTEN: Readonly<Record<string, string>> = {
  iam: "better-auth's and OAuth's bodies and flows (device login, cookies)",
  billing: "arguments that become bodies and queries one field at a time",
  cli: "the deploy namespace: uploads, manifests and directory packing",
  vault: "JSON-RPC tool calls over one MCP route"
}

const page = (name: string) => ({ route: name, pages: true as const, note: "Every page, one item at a time (`for await`)." })

export const NAMESPACES: Readonly<Record<string, NamespaceBinding>> = {
  registry: {
    service: "registry",
    options: {
      name: "RegistryCallOptions",
      type: `Pick<CallOptions, "signal" | "headers" | "idempotencyKey">`,
      doc: "Per-call options of the registry's methods (`headers` carries an `If-Match`)."
    },
    handTypes: ["RemoveEntityOptions"],
    groups: {
      platforms: {
        interface: "RegistryPlatforms",
        doc: "The registry's platforms (`client.registry.platforms`, `/api/v1/platforms`), one method per route of `Registry.PlatformRoutes` (named in each comment).",
        methods: {
          list: "PlatformRouteRefs.listPlatforms",
          all: page("PlatformRouteRefs.listPlatforms"),
          create: "PlatformRouteRefs.createPlatform",
          get: { route: "PlatformRouteRefs.getPlatform", note: "Another tenant's platform is a `NotFoundError`." },
          update: "PlatformRouteRefs.updatePlatform",
          delete: "PlatformRouteRefs.deletePlatform",
          suspend: "PlatformRouteRefs.suspendPlatform",
          restore: "PlatformRouteRefs.restorePlatform",
          cancel: "PlatformRouteRefs.cancelPlatform",
          hardDelete: "PlatformRouteRefs.hardDeletePlatform",
          lifecycle: "PlatformRouteRefs.listPlatformLifecycle",
          lifecycleAll: page("PlatformRouteRefs.listPlatformLifecycle")
        }
      },
      entities: {
        interface: "RegistryEntities",
        doc: "A platform's tenants and subtenants (`client.registry.entities`, `/api/v1/platforms/{platformId}/entities`), one method per route of `Registry.EntityRoutes` (named in each comment). Every method takes the platform first; another tenant's platform or entity is a `NotFoundError`.",
        methods: {
          list: "EntityRouteRefs.listEntities",
          all: page("EntityRouteRefs.listEntities"),
          get: "EntityRouteRefs.getEntity",
          create: "EntityRouteRefs.createEntity",
          update: "EntityRouteRefs.updateEntity",
          remove: {
            route: "EntityRouteRefs.deleteEntity",
            note: "A `ConflictError` while it has live children unless `{ cascade: true }`.",
            signature: "(platformId: string, entityId: string, options?: RemoveEntityOptions) => Promise<DeleteEntityResult>"
          },
          ancestors: "EntityRouteRefs.listEntityAncestors",
          descendants: "EntityRouteRefs.listEntityDescendants"
        }
      },
      resources: {
        interface: "RegistryResources",
        doc: "A platform's resources (`client.registry.resources`, under `/api/v1/platforms/{platformId}`; `client.registry.resourceFamily` has the same methods under `/api/v1/resources/platforms/{platformId}`), one method per route of `Registry.ResourceRoutes` (or `ResourceFamilyRoutes`), named in each comment. Another tenant's platform, entity or resource is a `NotFoundError`.",
        methods: {
          list: "ResourceRouteRefs.listResources",
          all: page("ResourceRouteRefs.listResources"),
          listForEntity: "ResourceRouteRefs.listEntityResources",
          allForEntity: page("ResourceRouteRefs.listEntityResources"),
          create: "ResourceRouteRefs.createResource",
          get: "ResourceRouteRefs.getResource",
          update: { route: "ResourceRouteRefs.updateResource", note: "`headers: { \"if-match\": etag }` for a conditional update (412 when stale)." },
          remove: "ResourceRouteRefs.deleteResource",
          lookup: { route: "LookupRouteRefs.lookupResource", queryField: "edgeName" }
        }
      },
      resourceFamily: {
        interface: "RegistryResources",
        sharesInterface: true,
        doc: "The same resource methods under the seed's other family, `/api/v1/resources/platforms/{platformId}`; the lookup at `/api/v1/resources/lookup`.",
        methods: {
          list: "ResourceFamilyRouteRefs.listResources",
          all: page("ResourceFamilyRouteRefs.listResources"),
          listForEntity: "ResourceFamilyRouteRefs.listEntityResources",
          allForEntity: page("ResourceFamilyRouteRefs.listEntityResources"),
          create: "ResourceFamilyRouteRefs.createResource",
          get: "ResourceFamilyRouteRefs.getResource",
          update: "ResourceFamilyRouteRefs.updateResource",
          remove: "ResourceFamilyRouteRefs.deleteResource",
          lookup: { route: "ResourceFamilyRouteRefs.lookupResource", queryField: "edgeName" }
        }
      },
      dnsRecords: {
        interface: "RegistryDnsRecords",
        doc: "A platform's DNS records (`client.registry.dnsRecords`, `/api/v1/platforms/{platformId}/dns-records`), one method per route of `Registry.DnsRecordRoutes`.",
        methods: {
          list: "DnsRecordRouteRefs.listDnsRecords",
          all: page("DnsRecordRouteRefs.listDnsRecords"),
          create: { route: "DnsRecordRouteRefs.createDnsRecord", note: "Its `id` is provisioning's `targetDnsRecordId`." },
          get: "DnsRecordRouteRefs.getDnsRecord",
          remove: "DnsRecordRouteRefs.deleteDnsRecord"
        }
      },
      secrets: {
        interface: "RegistrySecrets",
        doc: "A resource's secrets (`client.registry.secrets`, `/api/v1/platforms/{platformId}/resources/{resourceId}/secrets`), one method per route of `Registry.SecretRoutes`. No route ever answers a value.",
        methods: {
          list: "SecretRouteRefs.listResourceSecrets",
          all: page("SecretRouteRefs.listResourceSecrets"),
          set: { route: "SecretRouteRefs.setResourceSecret", bodyField: "value", note: "Stores `value` encrypted; answers the record, never the value." },
          remove: "SecretRouteRefs.deleteResourceSecret"
        }
      },
      features: {
        interface: "RegistryFeatures",
        doc: "An entity's feature activations and manifest (`client.registry.features`, `/api/v1/platforms/{platformId}/entities/{entityId}/features`), one method per route of `Registry.FeatureRoutes`.",
        methods: {
          list: "FeatureRouteRefs.listFeatures",
          all: page("FeatureRouteRefs.listFeatures"),
          activate: "FeatureRouteRefs.activateFeature",
          deactivate: "FeatureRouteRefs.deactivateFeature",
          get: { route: "FeatureRouteRefs.getFeature", note: "Poll it until `active` or `failed`." },
          manifest: "FeatureRouteRefs.getManifest"
        }
      },
      onboarding: {
        interface: "RegistryOnboarding",
        doc: "Onboarding flows (`client.registry.onboarding`, `/api/v1/onboarding`), one method per route of `Registry.OnboardingRoutes`.",
        methods: {
          start: "OnboardingRouteRefs.startOnboarding",
          get: { route: "OnboardingRouteRefs.getOnboarding", note: "Poll it until `completed` or `failed`." }
        }
      }
    }
  },
  provisioning: {
    service: "provisioning",
    options: {
      name: "ProvisioningCallOptions",
      type: `Pick<CallOptions, "signal" | "headers" | "idempotencyKey">`,
      doc: "Per-call options of the provisioning methods (`idempotencyKey`: the job-creating routes answer the first job for a key again)."
    },
    handTypes: ["JobEvent", "WatchOptions"],
    groups: {
      jobs: {
        interface: "ProvisioningJobs",
        doc: "A platform's jobs (`client.provisioning.jobs`, `/api/v1/provisioning/api/v1/provision/jobs`), one method per route of `Provisioning.ProvisioningRoutes` (named in each comment). A platform's owner and admins read its jobs (another tenant's job is a `NotFoundError`); retry, cancel and force-complete are the operators'.",
        methods: {
          get: "ProvisioningRouteRefs.getJob",
          list: "ProvisioningRouteRefs.listJobs",
          all: page("ProvisioningRouteRefs.listJobs"),
          retry: { route: "ProvisioningRouteRefs.retryJob", note: "A `ConflictError` (`INVALID_STATE`) from any status but `FAILED`." },
          cancel: "ProvisioningRouteRefs.cancelJob",
          forceComplete: "ProvisioningRouteRefs.forceCompleteJob",
          watch: {
            route: "ProvisioningRouteRefs.streamJobEvents",
            note: "The job's events as they happen (past ones first), ending after the event that makes it `COMPLETED` or `FAILED`; a dropped stream is opened again with `Last-Event-ID`, so no event is seen twice or missed; `signal` stops it (a `CoreAbortError`). `for await (const event of client.provisioning.jobs.watch(jobId))`.",
            signature: "(jobId: string, options?: WatchOptions) => AsyncGenerator<JobEvent, void, undefined>"
          }
        }
      },
      dlq: {
        interface: "ProvisioningDeadLetters",
        doc: "The dead-letter list (`client.provisioning.dlq`; operators): jobs that failed for good, and their replay.",
        methods: {
          list: "ProvisioningRouteRefs.listDeadLetters",
          all: page("ProvisioningRouteRefs.listDeadLetters"),
          replay: { route: "ProvisioningRouteRefs.replayDeadLetter", note: "A new job of the same type and payload." }
        }
      },
      create: {
        interface: "ProvisioningCreate",
        doc: "The job-creating routes (docs/provisioning.md; `client.provisioning.create`): each answers `{ jobId, status: \"QUEUED\" }` (202). Pass `idempotencyKey` to make a call safe to repeat: the same key answers the first job (the SDK otherwise sends a fresh key per call, reused by its retries).",
        methods: {
          platform: "ProvisioningRouteRefs.provisionPlatform",
          platformDeprovision: "ProvisioningRouteRefs.deprovisionPlatform",
          featureActivate: "ProvisioningRouteRefs.activateFeatureJob",
          featureDeactivate: "ProvisioningRouteRefs.deactivateFeatureJob",
          stackActivate: { route: "ProvisioningRouteRefs.activateStack", note: "The job's result carries the `stackInstanceId`." },
          stackDeactivate: "ProvisioningRouteRefs.deactivateStack",
          onboard: "ProvisioningRouteRefs.onboard",
          app: "ProvisioningRouteRefs.createApp",
          domain: "ProvisioningRouteRefs.addDomain",
          authUpgrade: "ProvisioningRouteRefs.upgradeAuth"
        }
      },
      domains: {
        interface: "ProvisioningDomains",
        doc: "A platform's custom domains (`client.provisioning.domains`); `create.domain` adds one (a job).",
        methods: {
          list: { route: "ProvisioningRouteRefs.listDomains", queryField: "platformId", note: "Every one: the list is not paged." },
          remove: { route: "ProvisioningRouteRefs.removeDomain", note: "Its hostname stops routing on the edge; answers the record, now `deleted`." }
        }
      }
    },
    notServed: { setPlatformStatus: "the static service key's hook, called by the registry" }
  },
  stacks: {
    service: "stacks",
    options: { name: "StacksCallOptions", type: `Pick<CallOptions, "signal">`, doc: "Per-call options of the stack catalogue's methods." },
    groups: {
      "": {
        interface: "StacksClient",
        doc: "The stack catalogue (`client.stacks`, `/api/v1/stacks`), one method per route of `Stacks.StackRoutes` (named in each comment). Every caller reads; operators and the static key write.",
        methods: {
          list: "StackRouteRefs.listStacks",
          create: "StackRouteRefs.createStack",
          get: "StackRouteRefs.getStack",
          update: "StackRouteRefs.updateStack"
        }
      },
      versions: {
        interface: "StacksVersions",
        doc: "A template's versions (`client.stacks.versions`).",
        methods: {
          list: "StackRouteRefs.listStackVersions",
          publish: "StackRouteRefs.createStackVersion",
          get: "StackRouteRefs.getStackVersion",
          deprecate: "StackRouteRefs.deprecateStackVersion"
        }
      }
    }
  },
  webhooks: {
    service: "events",
    options: { name: "WebhooksCallOptions", type: `Pick<CallOptions, "signal" | "headers" | "idempotencyKey">`, doc: "Per-call options of the webhook methods." },
    groups: {
      endpoints: {
        interface: "WebhookEndpoints",
        doc: "The organization's webhook endpoints (`client.webhooks.endpoints`, `/api/v1/webhooks/endpoints`), one method per route of `Events.WebhookRoutes` (named in each comment). `create` answers the signing secret once; another organization's endpoint is a `NotFoundError`.",
        methods: {
          create: "WebhookRouteRefs.createWebhookEndpoint",
          list: "WebhookRouteRefs.listWebhookEndpoints",
          all: page("WebhookRouteRefs.listWebhookEndpoints"),
          get: "WebhookRouteRefs.getWebhookEndpoint",
          update: "WebhookRouteRefs.updateWebhookEndpoint",
          delete: "WebhookRouteRefs.deleteWebhookEndpoint",
          rotateSecret: "WebhookRouteRefs.rotateWebhookSecret",
          test: "WebhookRouteRefs.testWebhookEndpoint",
          deliveries: "WebhookRouteRefs.listWebhookDeliveries",
          deliveriesAll: page("WebhookRouteRefs.listWebhookDeliveries"),
          replay: "WebhookRouteRefs.replayWebhookEvents"
        }
      },
      deliveries: {
        interface: "WebhookDeliveries",
        doc: "Delivery attempts (`client.webhooks.deliveries`): send an attempt's event again, with the same `webhook-id`.",
        methods: {
          retry: "WebhookRouteRefs.retryWebhookDelivery"
        }
      }
    },
    notServed: {
      "listEvents": "client.events",
      "getEvent": "client.events",
      "streamEvents": "client.events"
    }
  },
  events: {
    service: "events",
    options: { name: "EventsCallOptions", type: `Pick<CallOptions, "signal" | "headers">`, doc: "Per-call options of the event methods." },
    handTypes: ["EventStreamOptions"],
    groups: {
      "": {
        interface: "EventsClient",
        doc: "The organization's events (`client.events`, `/api/v1/events`), one method per route of `Events.EventRoutes` (named in each comment). Another organization's event is a `NotFoundError`.",
        methods: {
          list: "EventRouteRefs.listEvents",
          all: page("EventRouteRefs.listEvents"),
          get: "EventRouteRefs.getEvent",
          stream: {
            route: "EventRouteRefs.streamEvents",
            note: "The organization's events as they are dispatched (`types`, `platformId` filter them; `lastEventId` resumes after an event seen before); a dropped connection is opened again with `Last-Event-ID`, so no event is missed or seen twice; `signal` stops it (a `CoreAbortError`). `for await (const event of client.events.stream({ types: [\"tenant.created\"] }))`.",
            signature: "(options?: EventStreamOptions) => AsyncGenerator<CoreEvent, void, undefined>"
          }
        }
      }
    },
    notServed: {
      "createWebhookEndpoint": "client.webhooks",
      "listWebhookEndpoints": "client.webhooks",
      "getWebhookEndpoint": "client.webhooks",
      "updateWebhookEndpoint": "client.webhooks",
      "deleteWebhookEndpoint": "client.webhooks",
      "rotateWebhookSecret": "client.webhooks",
      "testWebhookEndpoint": "client.webhooks",
      "listWebhookDeliveries": "client.webhooks",
      "replayWebhookEvents": "client.webhooks",
      "retryWebhookDelivery": "client.webhooks"
    }
  }
}
