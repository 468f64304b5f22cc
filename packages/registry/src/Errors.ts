import { Conflict, Forbidden, InvalidState, NotFound, PreconditionFailed, ValidationError } from "@core/kernel"

/**
 * The registry's failures, as the kernel's tagged errors (no HTTP status here: the kernel's one
 * table maps them). A platform of another tenant is "not found", never "forbidden".
 */
export const platformNotFound = new NotFound({ message: "Platform not found" })

/** The slug is taken, or the organization already has its platform. */
export const platformConflict = (field: "slug" | "organizationId") =>
  new Conflict({
    message: field === "slug" ? "Platform slug already taken" : "The organization already has a platform",
    details: { field }
  })

/** A platform's `If-Match` no longer matches its `ETag`. */
export const platformStale = new PreconditionFailed({ message: "The platform has changed since it was read (If-Match does not match its ETag)" })

/** `InvalidState` (`details: { from, to }`): a lifecycle action the platform's status forbids. */
export const platformTransitionInvalid = (from: string, to: string) =>
  new InvalidState({ message: `A ${from} platform cannot become ${to}`, from, to })

/** An entity that does not exist, or is another platform's. */
export const entityNotFound = new NotFound({ message: "Entity not found" })

/** The parent named by a new entity does not exist, or is deleted. */
export const parentEntityNotFound = new NotFound({ message: "Parent entity not found" })

/** An entity's `If-Match` no longer matches its `ETag`. */
export const entityStale = new PreconditionFailed({ message: "The entity has changed since it was read (If-Match does not match its ETag)" })

/** A live sibling already has the slug. */
export const entitySlugTaken = new Conflict({ message: "Entity slug already taken among its siblings", details: { field: "slug" } })

/** A body field the contract cannot express a rule for (`issues: [{ path, message }]`). */
export const invalidEntityBody = (path: string, message: string) =>
  new ValidationError({ message: "Invalid request body", issues: [{ path, message }] })

/** Deleting an entity with live children without `cascade=true`. */
export const entityHasChildren = new Conflict({ message: "The entity has live children (delete with cascade=true)", details: { field: "children" } })

/** A change to a deleted entity. */
export const deletedEntityCannotChange = (to: string) => new InvalidState({ message: "A deleted entity cannot change", from: "deleted", to })

/** A resource that does not exist, or is another platform's. */
export const resourceNotFound = new NotFound({ message: "Resource not found" })

/** A live resource already has the edge name. */
export const edgeNameTaken = new Conflict({ message: "A live resource already has this edgeName", details: { field: "edgeName" } })

/** A resource's `If-Match` no longer matches its `ETag`. */
export const resourceStale = new PreconditionFailed({ message: "The resource has changed since it was read (If-Match does not match its ETag)" })

/** A change to a deleted resource. */
export const deletedResourceCannotChange = (to: string) => new InvalidState({ message: "A deleted resource cannot change", from: "deleted", to })

/** A DNS record that does not exist, or is another platform's. */
export const dnsRecordNotFound = new NotFound({ message: "DNS record not found" })

/** The platform already has a record of that type, name and content. */
export const dnsRecordDuplicate = new Conflict({ message: "The platform already has this DNS record (type, name and content)", details: { field: "content" } })

/** A secret record that does not exist, or is another resource's. */
export const secretNotFound = new NotFound({ message: "Secret not found" })

/** A feature activation that does not exist, or is another platform's. */
export const activationNotFound = new NotFound({ message: "Feature activation not found" })

/** Activating a feature while its deactivation runs. */
export const featureDeactivating = new InvalidState({ message: "The feature is being deactivated; activate it once that ends", from: "deactivating", to: "pending" })

/** Deactivating a feature that is not active in the environment. */
export const featureNotActive = new NotFound({ message: "The feature is not active in that environment" })

/** An onboarding flow that does not exist, or is another tenant's. */
export const flowNotFound = new NotFound({ message: "Onboarding flow not found" })

/** The stack template an onboarding names is unknown (or deprecated). */
export const templateNotFound = new NotFound({ message: "Stack template not found" })

/** Onboarding with a template on a registry without the stack catalogue. */
export const stackCatalogueUnavailable = new Conflict({ message: "The stack catalogue is not available to this registry", details: { field: "stackTemplateId" } })

/** The template has no published version to build from. */
export const templateUnpublished = (name: string) =>
  new Conflict({ message: `The stack template ${name} has no published version`, details: { field: "stackTemplateId" } })

/** The template's latest version cannot be built (`why`). */
export const templateUnbuildable = (name: string, version: string, why: string) =>
  new Conflict({ message: `The stack template ${name} ${version} cannot be built: ${why}`, details: { field: "stackTemplateId" } })

/** Starting an onboarding is the operators' and the service key's. */
export const onboardingOperatorsOnly = new Forbidden({ message: "Only operators and the service key start an onboarding" })

/** The `onboardingId` names a flow started with other `fields`. */
export const flowMismatch = (onboardingId: string, fields: ReadonlyArray<string>) =>
  new Conflict({
    message: `Onboarding flow ${onboardingId} was started with another ${fields.join(", ")}; use a new onboardingId for another onboarding`,
    details: { onboardingId, fields }
  })
