import { Conflict, InvalidState, NotFound, UpstreamUnavailable, ValidationError } from "@core/kernel"

/** A job that does not exist, or belongs to another tenant (never revealed: 404, not 403). */
export const jobNotFound = new NotFound({ message: "Job not found" })

/** A platform that does not exist, is deleted, or is another tenant's (404, never 403). */
export const platformNotFound = new NotFound({ message: "Platform not found" })

/** A custom domain that does not exist, or is another platform's. */
export const domainNotFound = new NotFound({ message: "Domain not found" })

/** A dead-letter entry that does not exist, or is another tenant's. */
export const deadLetterNotFound = new NotFound({ message: "Dead-letter entry not found" })

/** An `Idempotency-Key` header the contract refuses. */
export const invalidIdempotencyKey = (message: string) =>
  new ValidationError({ message: "Invalid request headers", issues: [{ path: "idempotency-key", message }] })

/** The same `Idempotency-Key` with another request. */
export const idempotencyMismatch = (idempotencyKey: string) =>
  new Conflict({
    message: "This Idempotency-Key was used with another request; use a new key for a new request",
    details: { idempotencyKey }
  })

/** `InvalidState` (`details: { from, to }`): an operator control the job's status forbids. */
export const jobTransitionInvalid = (from: string, to: string) => new InvalidState({ message: `A ${from} job cannot become ${to}`, from, to })

/** The edge provider failed to remove a domain. */
export const domainRemovalFailed = (hostname: string, reason: string) =>
  new UpstreamUnavailable({ message: `The edge provider could not remove ${hostname}: ${reason}`, upstream: "edge" })

/** The edge provider failed to take a platform's status. */
export const platformStatusNotApplied = (reason: string) =>
  new UpstreamUnavailable({ message: `The edge provider did not take the platform's status: ${reason}`, upstream: "edge" })
