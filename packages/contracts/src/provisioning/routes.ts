import { defineRoutes } from "../Routes.js"
import { DomainRoutes } from "./domains.js"
import { JobCreationRoutes } from "./creating.js"
import { JobApiRoutes } from "./jobs.js"
import { JobParams, JobRecord, PlatformStatusRequest, PlatformStatusResponse } from "./schemas.js"

const tags = ["provisioning: jobs"]

/**
 * The provisioning service's routes, documented under
 * `/api/v1/provision`; through the gateway at `/api/v1/provisioning/<path>` (the service serves its
 * documented paths and the stripped ones, docs/provisioning.md), with the job-creating and operator routes.
 */
export const ProvisioningRoutes = defineRoutes({
  ...DomainRoutes,
  ...JobCreationRoutes,
  ...JobApiRoutes,
  getJob: {
    method: "GET",
    path: "/api/v1/provision/jobs/{jobId}",
    summary: "Read a provisioning job: status, attempts, steps, progress, result (another tenant's job: 404)",
    description: "One provisioning job: its kind, status, attempts, current step, progress, result or error, and timestamps. The seed's open object; another tenant's job answers 404.",
    auth: "caller",
    permission: "platforms:read",
    tenant: "organization",
    request: { params: JobParams },
    responses: { 200: JobRecord, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  setPlatformStatus: {
    method: "POST",
    path: "/internal/platform-status",
    summary: "Suspend or restore a platform's edge resources (the service key; the registry's suspend calls it)",
    description: "Identity's and the registry's hook when a platform is suspended or restored: the provisioning service suspends or restores the platform's edge resources. The static service key (or a service token) only.",
    auth: "service",
    request: { body: PlatformStatusRequest },
    responses: { 200: PlatformStatusResponse, 400: null, 401: null },
    tags: ["provisioning: internal"]
  }
})
