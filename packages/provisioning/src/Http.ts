import { Provisioning, ProvisioningService } from "@core/contracts"
import { Route } from "@core/kernel"
import { Effect } from "effect"
import { JobCreationHandlers } from "./CreationHttp.js"
import { DomainHandlers } from "./DomainsHttp.js"
import { JobQueue } from "./JobQueue.js"
import { JobApiHandlers } from "./JobsHttp.js"
import { toJobRecord } from "./Jobs.js"
import { PlatformStatuses } from "./PlatformStatuses.js"

/** Provisioning's routes, one `handle` per catalogued route (`Provisioning.ProvisioningRoutes`). */
export const ProvisioningHandlers = [
  ...DomainHandlers,
  ...JobApiHandlers,
  ...JobCreationHandlers,
  Route.handle(Provisioning.ProvisioningRoutes.getJob, ({ caller, params }) =>
    Effect.gen(function*() {
      const jobs = yield* JobQueue
      return toJobRecord(yield* jobs.get(caller, params.jobId))
    })),
  Route.handle(Provisioning.ProvisioningRoutes.setPlatformStatus, ({ body }) =>
    Effect.gen(function*() {
      const statuses = yield* PlatformStatuses
      return yield* statuses.set(body.platformId, body.status)
    }))
]

/** Provisioning as an app: its routes under `/api/v1/provision` and at the paths the gateway forwards. */
export const ProvisioningRouter = Route.router(ProvisioningHandlers, { base: ProvisioningService.base })
