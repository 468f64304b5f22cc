import { defineRoutes } from "../Routes.js"
import { CreatePlatformRequest, PlatformParams, PlatformRecord } from "./schemas.js"

const tags = ["registry: platforms"]

/**
 * The registry's routes under `/api/v1/platforms` (the gateway strips that prefix; the registry
 * serves both). The rest of seed 002's registry arrives with the registry issue, on this template.
 */
export const PlatformRoutes = defineRoutes({
  createPlatform: {
    method: "POST",
    path: "/api/v1/platforms",
    summary: "Create a platform (the service key or an operator; identity's organization setup creates its own)",
    auth: "operator",
    request: { body: CreatePlatformRequest },
    responses: { 201: PlatformRecord, 400: null, 401: null, 403: null, 409: null },
    tags
  },
  getPlatform: {
    method: "GET",
    path: "/api/v1/platforms/{platformId}",
    summary: "Read a platform",
    auth: "caller",
    permission: "platforms:read",
    tenant: "organization",
    request: { params: PlatformParams },
    responses: { 200: PlatformRecord, 400: null, 401: null, 403: null, 404: null },
    tags
  }
})

/** Every route of the registry. */
export const RegistryRoutes = { ...PlatformRoutes } as const
