import { Conflict, InvalidState, NotFound, ValidationError } from "@core/kernel"

/** The command-line backend's failures, as the kernel's tagged errors (no HTTP status here). */
export const platformNotFound = new NotFound({ message: "Platform not found" })

/** No repository was created for the platform yet (`POST /platforms` first). */
export const repoNotFound = new NotFound({ message: "The platform has no repository yet: create it with POST /platforms" })

export const deploymentNotFound = new NotFound({ message: "Deployment not found" })

/** An archive that cannot be deployed: the message names the entry. */
export const badArchive = (message: string, entry?: string) =>
  new ValidationError({ message, issues: [{ path: entry ?? "body", message }] })

/** The same idempotency key with other bytes. */
export const idempotencyMismatch = new Conflict({
  message: "This Idempotency-Key was used for another upload",
  details: { field: "idempotency-key" }
})

/** A rollback to a deployment that did not succeed. */
export const notRollbackable = (status: string) =>
  new InvalidState({ message: "Only a successful deployment can be made live again", from: status, to: "live" })
