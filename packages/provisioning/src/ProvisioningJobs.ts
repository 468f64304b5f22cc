import { Layer } from "effect"
import { AuthJobsLive } from "./AuthJobs.js"
import { DomainJobsLive } from "./DomainJobs.js"
import { DomainsRepo } from "./DomainsRepo.js"
import { JobHandlers } from "./JobHandlers.js"
import { TestJobsIfEnabled } from "./TestJobs.js"

/**
 * Provisioning's own job types for the worker: `auth.upgrade`, `domain.add` and, with
 * `CORE_TEST_JOB_TYPES=1`, the test types. The host provides the `EdgeProvider`, the database and
 * the registry's `DnsTargets` and `PlatformDirectory`.
 */
export const ProvisioningJobs = JobHandlers.merge(AuthJobsLive, DomainJobsLive.pipe(Layer.provide(DomainsRepo.Default)), TestJobsIfEnabled)
