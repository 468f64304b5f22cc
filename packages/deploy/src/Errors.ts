import { Conflict, InvalidState, NotFound, PayloadTooLarge, UnsupportedMediaType, UpstreamUnavailable, ValidationError } from "@core/kernel"

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

/** An upload over the configured limit (`limit` in bytes). */
export const uploadTooLarge = (limit: number) => new PayloadTooLarge({ message: `The upload exceeds the limit of ${limit} bytes`, limit })

/** An upload that is not a gzip tarball by its `Content-Type`. */
export const uploadNotGzip = new UnsupportedMediaType({ message: "The upload is a gzip tarball: Content-Type must be application/gzip (or no body at all)" })

/** A source host (`upstream`: "github", "source host") that could not do its work. */
export const sourceHostUnavailable = (upstream: string, message: string) => new UpstreamUnavailable({ upstream, message })
