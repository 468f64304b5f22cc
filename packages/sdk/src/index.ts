/**
 * @core/sdk — the client of a Core deployment. Runs on Node ≥ 20, browsers, Deno, Bun and workers.
 */
export { createClient, createCoreClient, type BaseClient, type ClientWith, type CoreClient, type IamClient, type Namespace, type Namespaces } from "./client.js"
/** The namespace factories, for `createCoreClient(options, { registry, … })`: each bundles only its own service's code. */
export { iam } from "./resources/iam.js"
export { registry } from "./resources/registry.js"
export { stacks } from "./resources/stacks.js"
export { provisioning } from "./resources/provisioning.js"
export { billing } from "./resources/billing.js"
export { deploy } from "./resources/deploy.js"
export { vault } from "./resources/vault.js"
export { webhooks, type WebhooksClient } from "./resources/webhooks.js"
export { events, type CoreEvent, type EventStreamOptions, type EventType } from "./resources/events.js"
export type { CallableRoute, CallInput, CallOptions, CallResult, PageItem } from "./call.js"
export type { ClientOptions, HttpMethod, Query, RequestOptions, Transport } from "./transport.js"
export type { CursorPage, PaginateOptions } from "./pagination.js"
export type { RetryOptions } from "./retry.js"
export type { ResponseSchema, SchemaIssue } from "./schema.js"
/** The generated namespaces' types: each route's query, body, result and page item (`ListPlatformsQuery`, `CreatePlatformBody`, `GetPlatformResult`). */
export type * from "./generated/registry.js"
export type * from "./generated/provisioning.js"
export type * from "./generated/stacks.js"
export type * from "./generated/webhooks.js"
export type * from "./generated/events.js"
export type { HealthOptions } from "./resources/health.js"
export type { IamAccountCallOptions, IamAccounts } from "./resources/iam-accounts.js"
export type { IamAuthorization, IamCallOptions } from "./resources/iam-authorization.js"
export type { IamOrganizationCallOptions, IamOrganizations, InvitationListQuery } from "./resources/iam-organizations.js"
export type { IamDevice, IamDeviceCallOptions, WaitForTokenOptions } from "./resources/iam-device.js"
export type { StacksCallOptions, StacksClient } from "./resources/stacks.js"
export { billingUsage, type BillingUsageClient, type UsageCallOptions, type UsageDailyQuery, type UsageEntitiesQuery, type UsageHistoryQuery } from "./resources/billing-usage.js"
export type { DeployCallOptions, DeployClient, SiteArchive, UploadOptions } from "./resources/deploy.js"
export { packDirectory, scanDirectory, type SiteFile } from "./resources/deploy-directory.js"
export { type VaultCallOptions, type VaultClient, VaultToolError, type VaultToolResult } from "./resources/vault.js"
export type { BillingCallOptions, BillingClient } from "./resources/billing.js"
export type { LifecycleQuery, ListPlatformsQuery, RegistryCallOptions, RegistryClient, RegistryPlatforms } from "./resources/registry.js"
export type { ListEntitiesQuery, RegistryEntities, RemoveEntityOptions } from "./resources/registry.js"
export type { ListDnsRecordsQuery, ListEntityResourcesQuery, ListFeaturesQuery, ListResourcesQuery, ListSecretsQuery } from "./resources/registry.js"
export type { ListDeadLettersQuery, ListJobsQuery, OperatorActionInput, ProvisioningCallOptions, ProvisioningClient, ProvisioningCreate } from "./resources/provisioning.js"
export type { ProvisioningDeadLetters, ProvisioningDomains, ProvisioningJobs, WatchOptions } from "./resources/provisioning.js"
export { parseEventStream, type ServerSentEvent } from "./sse.js"
export { verifyWebhook, type VerifyWebhookOptions, type WebhookEvent, type WebhookHeaders, WebhookVerificationError } from "./webhooks.js"
export type { RegistryDnsRecords, RegistryFeatures, RegistryOnboarding, RegistryResources, RegistrySecrets } from "./resources/registry.js"
export {
  BadRequestError,
  ConflictError,
  CoreAbortError,
  CoreApiError,
  CoreConnectionError,
  CoreError,
  CoreResponseValidationError,
  CoreTimeoutError,
  ForbiddenError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PaymentRequiredError,
  PlatformSuspendedError,
  RateLimitError,
  UnauthorizedError,
  UnprocessableEntityError,
  UnsupportedMediaTypeError
} from "./errors.js"
