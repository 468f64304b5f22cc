import type { Migrations } from "@core/kernel"
import jobs from "./0001_jobs.js"

/** Provisioning's migrations (schema `provisioning`). */
export const ProvisioningMigrations: Migrations.Domain = {
  schema: "provisioning",
  migrations: {
    "0001_jobs": jobs
  }
}
