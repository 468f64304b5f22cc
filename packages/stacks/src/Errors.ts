import { Conflict, NotFound, ValidationError } from "@core/kernel"

/** The catalogue's failures, as the kernel's tagged errors (no HTTP status here). */
export const templateNotFound = new NotFound({ message: "Stack template not found" })

/** No such version of the template. */
export const versionNotFound = new NotFound({ message: "Stack version not found" })

/** The template name is taken. */
export const templateExists = new Conflict({ message: "Stack template name already taken", details: { field: "name" } })

/** The template already has this version. */
export const versionExists = (version: string) =>
  new Conflict({ message: `Version ${version} already exists`, details: { field: "version", version } })

/** A version the contract's pattern let through but semantic versioning cannot order (a huge integer). */
export const unorderableVersion = (field: "version" | "coreSdkVersion") =>
  new ValidationError({
    message: "Invalid request body",
    issues: [{ path: field, message: "Not a semantic version that can be ordered (each number at most 2^53 - 1)" }]
  })
