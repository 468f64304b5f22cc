import { NotFound, ValidationError } from "@core/kernel"

/** The events service's failures, as the kernel's tagged errors (no HTTP status here). */
export const endpointNotFound = new NotFound({ message: "Webhook endpoint not found" })

/** No such event in the caller's organization (or it was pruned). */
export const eventNotFound = new NotFound({ message: "Event not found" })

/** No such delivery attempt in the caller's organization. */
export const deliveryNotFound = new NotFound({ message: "Webhook delivery not found" })

/** A caller acting in no organization. */
export const organizationNotFound = new NotFound({ message: "Organization not found" })

const invalidUrl = (message: string) => new ValidationError({ message, issues: [{ path: "url", message }] })

/** An `http://` endpoint while plain HTTP is not allowed. */
export const httpsRequired = invalidUrl("The webhook URL must use https (set CORE_WEBHOOKS_ALLOW_HTTP=1 on the server to allow http)")

/** An endpoint that names or resolves to a private, loopback or link-local address. */
export const privateTarget = (host: string, address: string) =>
  invalidUrl(`The webhook URL's host ${host} resolves to ${address}, a private, loopback or link-local address (set CORE_WEBHOOKS_ALLOW_PRIVATE=1 on the server to allow it)`)

/** An endpoint URL with credentials in it. */
export const credentialsInUrl = invalidUrl("The webhook URL must not carry a user name or password")

/** A stream's `types` naming something that is not an event type. */
export const unknownEventType = (type: string) =>
  new ValidationError({ message: "Invalid query", issues: [{ path: "types", message: `Unknown event type ${type}` }] })
