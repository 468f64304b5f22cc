import type { Caller } from "@core/kernel"
import { EdgeProvider } from "@core/provisioning"
import { Features, Resources, Secrets } from "@core/registry"
import { Effect, Redacted } from "effect"
import { withoutPaths } from "./internal/failures.js"
import { platformFor } from "./Policy.js"

/**
 * Secrets from the command line (issue 15): each value stored (encrypted) as a registry secret
 * record of the platform's worker resource, created `pending` when it has none yet (decision
 * 0486), then set on that worker at the edge provider (decision 0490). Values are never answered
 * nor logged; `results` says `ok` or an error word per name (`edge_refused`: stored, but the edge
 * refused it — setting it again retries).
 */
export class CliSecrets extends Effect.Service<CliSecrets>()("@core/deploy/CliSecrets", {
  effect: Effect.gen(function*() {
    const resources = yield* Resources
    const secrets = yield* Secrets
    const features = yield* Features
    const edge = yield* EdgeProvider

    /** The platform's worker resource, created when it has none. */
    const workerOf = (caller: Caller, platformId: string, create: boolean) =>
      Effect.gen(function*() {
        const page = yield* resources.list(caller, platformId, { limit: 1, resourceType: "worker", environment: "prod" } as never)
        const found = page.data[0]
        if (found !== undefined || !create) return found
        const platform = yield* platformFor(caller, platformId, true)
        const entityId = yield* features.defaultEntityId(platformId)
        return yield* resources.create(caller, platformId, entityId, {
          stackId: "cli",
          resourceType: "worker",
          serviceName: "worker",
          environment: "prod",
          edgeName: `${platform.slug}-worker`
        })
      })

    const set = Effect.fn("CliSecrets.set")(function*(caller: Caller, platformId: string, values: Readonly<Record<string, string>>) {
      yield* platformFor(caller, platformId, true)
      const worker = yield* workerOf(caller, platformId, true)
      const results: Record<string, string> = {}
      for (const [name, value] of Object.entries(values)) {
        const stored = yield* secrets.set(caller, platformId, worker!.id, name, value).pipe(
          Effect.as("ok"),
          Effect.catchAll((error) => Effect.succeed(error._tag === "NotFound" ? "not_found" : error._tag === "Forbidden" ? "forbidden" : "error"))
        )
        results[name] = stored !== "ok" ? stored : yield* edge.setWorkerSecret({ platformId, edgeName: worker!.edgeName, name, value: Redacted.make(value) }).pipe(
          Effect.as("ok"),
          Effect.catchAll((error) =>
            Effect.as(Effect.logWarning(`The edge refused the secret ${name} of ${worker!.edgeName}: ${withoutPaths(error.message).slice(0, 300)}`), "edge_refused"))
        )
      }
      return { platformId, results }
    })

    const list = Effect.fn("CliSecrets.list")(function*(caller: Caller, platformId: string) {
      yield* platformFor(caller, platformId, false)
      const worker = yield* workerOf(caller, platformId, false)
      if (worker === undefined) return { data: [] }
      const page = yield* secrets.list(caller, platformId, worker.id, { limit: 100 } as never)
      return {
        data: page.data.map((record) => ({ name: record.secretName, lastSetAt: record.lastSetAt === null ? 0 : Date.parse(record.lastSetAt) }))
      }
    })

    return { set, list } as const
  })
}) {}
