import { Conflict, NotFound } from "@core/kernel"

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
