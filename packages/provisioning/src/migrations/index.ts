import type { Migrations } from "@core/kernel"
import jobs from "./0001_jobs.js"
import jobEventsDeadLetters from "./0002_job_events_dead_letters.js"
import targetsIdempotency from "./0003_targets_idempotency.js"
import edgeResources from "./0004_edge_resources.js"
import claimFunctions from "./0005_claim_functions.js"

/** Provisioning's migrations (schema `provisioning`). */
export const ProvisioningMigrations: Migrations.Domain = {
  schema: "provisioning",
  migrations: {
    "0001_jobs": jobs,
    "0002_job_events_dead_letters": jobEventsDeadLetters,
    "0003_targets_idempotency": targetsIdempotency,
    "0004_edge_resources": edgeResources,
    "0005_claim_functions": claimFunctions
  }
}
