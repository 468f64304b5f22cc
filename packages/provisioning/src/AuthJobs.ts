import { Effect, Layer } from "effect"
import { type JobHandler, JobFailed, JobHandlers } from "./JobHandlers.js"
import type { JobRow } from "./Jobs.js"
import { AUTH_UPGRADE } from "./JobTypes.js"
import { EdgeProvider } from "./ports/EdgeProvider.js"

/** The job type of `POST /api/v1/provision/auth/upgrade`. */
export { AUTH_UPGRADE }

/** The authentication worker's current version: an upgrade deploys it (decision 0291). */
export const AUTH_WORKER_VERSION = "1.0.0"

/**
 * A platform's authentication worker as deployed: it answers `/api/auth/*` at the platform's edge by
 * forwarding to Core's identity service (`IAM_URL` in its environment), naming the platform.
 */
export const authWorkerScript = (platformId: string): string =>
  [
    `// core auth worker ${AUTH_WORKER_VERSION} for ${platformId}`,
    "export default {",
    "  async fetch(request, env) {",
    "    const url = new URL(request.url)",
    "    const target = new URL(url.pathname + url.search, env.IAM_URL)",
    "    const headers = new Headers(request.headers)",
    `    headers.set("x-core-platform-id", ${JSON.stringify(platformId)})`,
    "    return fetch(new Request(target, { method: request.method, headers, body: request.body, redirect: \"manual\" }))",
    "  }",
    "}",
    ""
  ].join("\n")

/** The worker's edge name: deterministic per platform (a DNS label), so a retried upgrade replaces, never duplicates. */
export const authWorkerName = (platformId: string): string =>
  `auth-${platformId}`.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/-+/g, "-").slice(0, 63).replace(/-+$/, "")

const platformOf = (job: JobRow): Effect.Effect<string, JobFailed> =>
  typeof job.payload.platformId === "string" && job.payload.platformId.length > 0
    ? Effect.succeed(job.payload.platformId)
    : Effect.fail(new JobFailed({ message: "An auth.upgrade job needs platformId in its payload" }))

/**
 * `auth.upgrade`: deploy the current authentication worker for the platform over the
 * `EdgeProvider` (step `deploy`: the worker of its deterministic name made or replaced with the new
 * bundle), then check the edge lists it (step `verify`). The result names the worker and version.
 */
export const AuthJobsLive: Layer.Layer<JobHandlers, never, EdgeProvider> = Layer.effect(
  JobHandlers,
  Effect.gen(function*() {
    const edge = yield* EdgeProvider
    const upgrade: JobHandler = {
      maxAttempts: 5,
      run: (job, context) =>
        Effect.gen(function*() {
          const platformId = yield* platformOf(job)
          const edgeName = authWorkerName(platformId)
          let edgeId = ""
          yield* context.step("deploy", Effect.map(edge.createResource({
            platformId,
            resourceType: "worker",
            edgeName,
            environment: "prod",
            config: { role: "auth", version: AUTH_WORKER_VERSION, script: authWorkerScript(platformId) }
          }), (handle) => {
            edgeId = handle.edgeId
          }))
          yield* context.progress(0.7)
          yield* context.step("verify", Effect.flatMap(edge.listResources(platformId), (listed) => {
            const found = listed.find((resource) => resource.resourceType === "worker" && resource.edgeName === edgeName)
            if (found === undefined) return Effect.fail(new JobFailed({ message: `The edge does not list the auth worker ${edgeName}` }))
            edgeId = found.edgeId
            return Effect.void
          }))
          return { platformId, worker: edgeName, edgeId, version: AUTH_WORKER_VERSION, provider: edge.name }
        })
    }
    return new Map([[AUTH_UPGRADE, upgrade]])
  })
)
