import { type Caller, type Callers, type Forbidden, type NotFound, Policy } from "@core/kernel"
import { Effect } from "effect"
import { jobNotFound } from "./Errors.js"
import type { JobRow } from "./Jobs.js"

/**
 * Who may read a job: a caller holding `platforms:read` in the organization owning the job's
 * platform (its members and API keys), operators and the service key. Anyone else, and anyone for
 * a job of no organization, gets 404 as if the job did not exist.
 */
export const canReadJob = (caller: Caller, job: JobRow): Effect.Effect<void, NotFound | Forbidden, Callers> =>
  job.organizationId === null
    ? Effect.flatMap(Policy.isPrivileged(caller), (privileged) => (privileged ? Effect.void : Effect.fail(jobNotFound)))
    : Policy.requirePermission(caller, job.organizationId, "platforms:read", jobNotFound)
