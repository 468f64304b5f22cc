import { z } from "zod"

/** The result of one readiness check: it answered, it failed, it timed out, or it has not run yet. */
export const ReadinessCheckResult = z.enum(["ok", "error", "timeout", "starting"])

/**
 * The body of `GET /ready`: the server's state and each dependency it asked (`database`, and
 * `redis` when `REDIS_URL` is set). 200 carries `ready` or `degraded` (only optional checks failed);
 * 503 carries `starting` (still migrating) or `unavailable` (a required check failed).
 */
export const Readiness = z.object({
  status: z.enum(["ready", "degraded", "starting", "unavailable"]),
  checks: z.record(z.string().max(63), ReadinessCheckResult).describe("Each check by name")
}).meta({ id: "Readiness" })
export type Readiness = z.infer<typeof Readiness>

/**
 * An OpenAPI 3.1 document as served at `/api/v1/openapi.json`, described at its top level only
 * (the document describes itself).
 */
export const OpenApiDocumentBody = z.looseObject({
  openapi: z.string().regex(/^3\.1\.\d+$/),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
  components: z.looseObject({})
}).meta({ id: "OpenApiDocument" })
