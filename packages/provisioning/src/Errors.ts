import { NotFound } from "@core/kernel"

/** A job that does not exist, or belongs to another tenant (never revealed: 404, not 403). */
export const jobNotFound = new NotFound({ message: "Job not found" })
