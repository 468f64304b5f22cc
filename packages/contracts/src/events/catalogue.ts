import { z } from "zod"
import { InvoiceRecord, SubscriptionRecord } from "../billing/schemas.js"
import { DeploymentRecord } from "../deploy/schemas.js"
import { ApiKey } from "../iam/authorization.js"
import { Invitation, OrganizationMember } from "../iam/organizations.js"
import { JobRecord } from "../provisioning/schemas.js"
import { ResourceRecord } from "../registry/resources.js"
import { EntityRecord, LifecycleEvent, PlatformRecord } from "../registry/schemas.js"

/** One type of event: the schema of its `data`, what it means, and the version of that schema. */
export interface EventTypeSpec<Data extends z.ZodType = z.ZodType> {
  /** The schema of the event's `data`: the object as the API answers it after the change (never a secret). */
  readonly data: Data
  /** One line: what happened. */
  readonly description: string
  /** The version of `data`'s schema: a breaking change to it is a new version (`2`), the old one stays deliverable. */
  readonly version: number
  /** The service whose change records it. */
  readonly source: "registry" | "iam" | "provisioning" | "cli" | "billing" | "events"
}

/** A type's entry, keeping its schema's own type: `EventData<T>` is exact, so a recorded event's `data` is checked when it compiles. */
const spec = <Data extends z.ZodType>(source: EventTypeSpec["source"], description: string, data: Data): EventTypeSpec<Data> => ({ data, description, version: 1, source })

/** `platform.status_changed`: the platform after the change and its lifecycle event. */
export const PlatformStatusChangedData = z.object({ platform: PlatformRecord, lifecycleEvent: LifecycleEvent })

/** `usage.threshold_reached`: which meter of which platform passed which share of its allowance. */
export const UsageThresholdData = z.object({
  platformId: z.string(),
  meter: z.string(),
  threshold: z.number(),
  used: z.number(),
  included: z.number().nullable(),
  periodStart: z.string(),
  periodEnd: z.string()
})

/** `member.removed`: the membership that ended. */
export const MemberRemovedData = z.object({ id: z.string(), organizationId: z.string(), userId: z.string(), role: z.string() })

/** `webhook.test`: what `POST /api/v1/webhooks/endpoints/{id}/test` sends. */
export const WebhookTestData = z.object({ endpointId: z.string(), message: z.string() })

/** `webhook.endpoint_disabled`: an endpoint that stopped receiving, and why. */
export const EndpointDisabledData = z.object({
  endpointId: z.string(),
  url: z.string(),
  reason: z.enum(["gone", "failing"]),
  disabledAt: z.string()
})

/**
 * The event catalogue: every type of event Core records, named `<noun>.<past-tense verb>`. The
 * OpenAPI document, the SDK's types, `docs/webhooks.md` and the vault read it.
 */
export const EVENT_CATALOGUE = {
  "platform.created": spec("registry", "A platform was created (with its default tenant).", PlatformRecord),
  "platform.status_changed": spec("registry", "A platform moved in its lifecycle: suspended, restored, cancelled or deleted.", PlatformStatusChangedData),
  "tenant.created": spec("registry", "A tenant or subtenant was created under a platform.", EntityRecord),
  "tenant.deleted": spec("registry", "A tenant or subtenant was deleted.", EntityRecord),
  "resource.provisioned": spec("provisioning", "An edge resource was provisioned and is live.", ResourceRecord),
  "resource.removed": spec("provisioning", "An edge resource was removed.", ResourceRecord),
  "job.succeeded": spec("provisioning", "A provisioning job completed (or an operator force-completed it).", JobRecord),
  "job.failed": spec("provisioning", "A provisioning job failed: an attempt that will be retried (status QUEUED), or an operator cancelled it (FAILED).", JobRecord),
  "job.dead_lettered": spec("provisioning", "A provisioning job spent its attempts and went to the dead letters.", JobRecord),
  "deployment.ready": spec("cli", "A deployment went live.", DeploymentRecord),
  "deployment.failed": spec("cli", "A deployment failed.", DeploymentRecord),
  "deployment.rolled_back": spec("cli", "A deployment was rolled back to an earlier one.", DeploymentRecord),
  "subscription.created": spec("billing", "A platform's subscription was created.", SubscriptionRecord),
  "subscription.updated": spec("billing", "A subscription changed plan, status or period.", SubscriptionRecord),
  "subscription.canceled": spec("billing", "A subscription was canceled.", SubscriptionRecord),
  "invoice.finalized": spec("billing", "An invoice was finalized and is due.", InvoiceRecord),
  "invoice.paid": spec("billing", "An invoice was paid.", InvoiceRecord),
  "invoice.payment_failed": spec("billing", "A payment of an invoice failed.", InvoiceRecord),
  "usage.threshold_reached": spec("billing", "A platform's usage of a meter passed a share of its allowance.", UsageThresholdData),
  "member.invited": spec("iam", "Someone was invited to the organization.", Invitation),
  "member.joined": spec("iam", "A user joined the organization.", OrganizationMember),
  "member.removed": spec("iam", "A member left or was removed from the organization.", MemberRemovedData),
  "api_key.created": spec("iam", "An API key was created (never the key itself).", ApiKey),
  "api_key.revoked": spec("iam", "An API key was revoked.", ApiKey),
  "webhook.test": spec("events", "A test event sent to one endpoint on request.", WebhookTestData),
  "webhook.endpoint_disabled": spec("events", "A webhook endpoint was disabled (it answered 410 Gone, or failed for days).", EndpointDisabledData)
} as const satisfies Record<string, EventTypeSpec>

/** An event type of the catalogue (`platform.created`, …). */
export type EventType = keyof typeof EVENT_CATALOGUE

/** Every event type, in catalogue order. */
export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as ReadonlyArray<EventType>

/** An event type of the catalogue. */
export const EventTypeSchema = z.enum(EVENT_TYPES as [EventType, ...Array<EventType>])

/** The `data` of an event of type `T`. */
export type EventData<T extends EventType> = z.output<(typeof EVENT_CATALOGUE)[T]["data"]>

/** Whether a string is an event type of the catalogue. */
export const isEventType = (value: string): value is EventType => Object.hasOwn(EVENT_CATALOGUE, value)

/** An event's id: `evt_` and 26 characters. */
export const EventId = z.string().regex(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/, { error: "Expected an event id (evt_…)" })

/**
 * An event as it is stored, listed, streamed and delivered: `data` is the object as the API
 * answers it after the change, `version` names the schema of that type's `data`.
 */
export const EventEnvelope = z
  .object({
    id: z.string(),
    type: EventTypeSchema,
    version: z.number().int().min(1),
    createdAt: z.string(),
    platformId: z.string().nullable(),
    organizationId: z.string(),
    data: z.record(z.string(), z.unknown())
  })
  .meta({ id: "Event" })
export type EventEnvelope = z.infer<typeof EventEnvelope>

/** An event of type `T` with its exact `data`: the envelope as a webhook of that type delivers it. */
export type EventOf<T extends EventType> = Omit<EventEnvelope, "type" | "data"> & { type: T; data: EventData<T> }

/** Any event with its exact `data`: one member per type, told apart by `type`. */
export type AnyEvent = { [T in EventType]: { [K in keyof EventOf<T>]: EventOf<T>[K] } }[EventType]

/** An event of type `type` as it is delivered: the envelope with that type's `data`. */
export const eventOfType = (type: EventType): z.ZodType =>
  EventEnvelope.extend({ type: z.literal(type), version: z.literal(EVENT_CATALOGUE[type].version), data: EVENT_CATALOGUE[type].data }).meta({ id: undefined })

/**
 * The catalogue as OpenAPI 3.1 `webhooks`: one entry per event type, whose body is that type's
 * event, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`).
 */
export const eventWebhooks = (): Record<string, { readonly summary: string; readonly description: string; readonly body: z.ZodType; readonly tags: ReadonlyArray<string> }> =>
  Object.fromEntries(EVENT_TYPES.map((type) => [type, {
    summary: EVENT_CATALOGUE[type].description,
    description: `Posted to each enabled endpoint that wants \`${type}\` (version ${EVENT_CATALOGUE[type].version}), signed per Standard Webhooks: \`webhook-id\` (the event id), \`webhook-timestamp\`, \`webhook-signature\`.`,
    body: eventOfType(type),
    tags: ["events"]
  }]))
