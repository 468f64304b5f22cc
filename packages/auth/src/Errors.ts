import { Conflict, Forbidden, InvalidState, NotFound, PlatformSuspended, RateLimited, Unauthorized, UpstreamUnavailable, ValidationError } from "@core/kernel"

/**
 * Identity's failures as the kernel's tagged errors (no HTTP status here: the kernel's one table
 * maps them). The protocol-shaped failures live beside their protocol: `accounts/AccountErrors.ts`
 * (better-auth's codes), `organizations/OrganizationErrors.ts`, `device/OAuthErrors.ts` (RFC 6749).
 */

/** A request without credentials where they are required. */
export const authenticationRequired = new Unauthorized({ message: "Authentication required" })

/** A session cookie or token that is unknown, revoked or expired. */
export const invalidSession = new Unauthorized({ message: "Invalid or expired session" })

/** Command-line credentials (a session or an API key) that are unknown or expired. */
export const invalidCredentials = new Unauthorized({ message: "Invalid or expired credentials" })

/** An API key that is unknown, revoked or expired. */
export const invalidApiKey = new Unauthorized({ message: "Invalid API key" })

/** A body field the contract cannot express a rule for (`issues: [{ path, message }]`). */
export const invalidBody = (path: string, message: string) =>
  new ValidationError({ message: "Invalid request body", issues: [{ path, message }] })

/** A query field the contract cannot express a rule for. */
export const invalidQuery = (path: string, message: string) =>
  new ValidationError({ message: "Invalid request query", issues: [{ path, message }] })

/** An organization that does not exist, or that the caller may not see. */
export const organizationNotFound = new NotFound({ message: "Organization not found" })

/** An API key that does not exist, or is another organization's. */
export const apiKeyNotFound = new NotFound({ message: "API key not found" })

/** An API key for an organization without a platform. */
export const organizationWithoutPlatform = new Conflict({ message: "The organization has no platform; API keys are bound to a platform" })

/** A grant that does not exist, or is another organization's. */
export const grantNotFound = new NotFound({ message: "Grant not found" })

/** A grant for a user outside the organization. */
export const notAMember = new NotFound({ message: "The user is not a member of this organization" })

/** Lifting a denial of an owner, or of oneself, without being an owner. */
export const onlyOwnersLiftDenials = new Forbidden({ message: "Only an owner can lift a denial of an owner or of oneself" })

/** Handing out permissions the caller does not hold. */
export const permissionsNotHeld = (missing: ReadonlyArray<string>) =>
  new Forbidden({ message: `You cannot hand out permissions you do not hold: ${missing.join(", ")}` })

/** A role mapping that does not exist. */
export const roleMappingNotFound = new NotFound({ message: "Role mapping not found" })

/** Reading others' audit entries without naming the organization. */
export const ownAuditEntriesOnly = new Forbidden({ message: "Without organizationId only your own entries can be read" })

/** The bootstrap owner's email names no user. */
export const noUserWithEmail = (email: string) => new NotFound({ message: `No user has the email ${email}; sign up first` })

/** A user that does not exist (any more). */
export const userNotFound = new NotFound({ message: "User not found" })

/** A session that does not exist, or is another user's. */
export const sessionNotFound = new NotFound({ message: "Session not found" })

/** `InvalidState`: canceling an invitation that is no longer pending. */
export const invitationNotPending = (from: string) => new InvalidState({ message: `The invitation is ${from}, not pending`, from, to: "canceled" })

/** 451: what the owners of a suspended platform are refused (`what`) until it is restored. */
export const refusedWhileSuspended = (platformId: string, what: string) =>
  new PlatformSuspended({ message: `Platform ${platformId} has been suspended: its owners cannot ${what} until it is restored`, platformId })

/** The registry could not create an organization's platform. */
export const platformCreationFailed = new UpstreamUnavailable({ message: "The registry could not create the platform", upstream: "registry" })

/** Too many failed sign-ins: retry after `resetSeconds`. */
export const signInRateLimited = (limit: number, resetSeconds: number) =>
  new RateLimited({ message: "Too many failed sign-in attempts. Try again later.", retryAfterSeconds: resetSeconds, limit, remaining: 0, resetSeconds })
