import { createHash } from "node:crypto"
import { Clock, Effect, Layer, Option } from "effect"
import { DomainsRepo } from "./DomainsRepo.js"
import { JobFailed, type JobHandler, JobHandlers } from "./JobHandlers.js"
import type { JobRow } from "./Jobs.js"
import { DOMAIN_ADD } from "./JobTypes.js"
import { DnsTargets } from "./ports/DnsTargets.js"
import { EdgeProvider } from "./ports/EdgeProvider.js"
import { PlatformDirectory } from "./ports/PlatformDirectory.js"

/** Attempts of `domain.add`: its steps are memoized, so a retry resumes. */
const DOMAIN_MAX_ATTEMPTS = 5

/** A custom domain's id: one per platform and hostname. */
export const domainIdOf = (platformId: string, hostname: string): string =>
  `dom_${createHash("sha256").update([platformId, hostname.toLowerCase()].join("\u0000")).digest("hex").slice(0, 26)}`

const fail = (message: string) => new JobFailed({ message })

const text = (job: JobRow, field: string): Effect.Effect<string, JobFailed> => {
  const value = job.payload[field]
  return typeof value === "string" && value.length > 0 ? Effect.succeed(value) : Effect.fail(fail(`A ${job.type} job needs ${field} in its payload`))
}

/** Whether this attempt is the job's last: a failure then fails its domain too. */
const lastAttempt = (job: JobRow) => job.attempts >= Math.min(job.maxAttempts, DOMAIN_MAX_ATTEMPTS)

/**
 * `domain.add` (decision 0295): the domain recorded (`pending`), its hostname routed on the edge to
 * the target of the platform's DNS record (`DnsTargets`), then `active` and `verified` once the
 * edge says so. Provisioning's own job type: the domains are its table.
 */
export const DomainJobsLive: Layer.Layer<JobHandlers, never, EdgeProvider | DomainsRepo | DnsTargets | PlatformDirectory> = Layer.effect(
  JobHandlers,
  Effect.gen(function*() {
    const edge = yield* EdgeProvider
    const domains = yield* DomainsRepo
    const targets = yield* DnsTargets
    const directory = yield* PlatformDirectory
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    const addDomain: JobHandler = {
      maxAttempts: DOMAIN_MAX_ATTEMPTS,
      run: (job, context) =>
        Effect.gen(function*() {
          const platformId = yield* text(job, "platformId")
          const hostname = (yield* text(job, "customHostname")).toLowerCase()
          const dnsRecordId = yield* text(job, "targetDnsRecordId")
          const platform = yield* directory.platform(platformId)
          if (Option.isNone(platform)) return yield* fail(`Platform ${platformId} not found`)
          if (platform.value.status !== "active") return yield* fail(`Platform ${platformId} is ${platform.value.status}, not active`)
          const target = yield* targets.target(platformId, dnsRecordId)
          if (Option.isNone(target)) return yield* fail(`DNS record ${dnsRecordId} not found in platform ${platformId}`)
          const id = domainIdOf(platformId, hostname)
          yield* context.step("record", Effect.gen(function*() {
            if (yield* domains.hostnameTaken(hostname, id)) return yield* fail(`The hostname ${hostname} is taken`)
            yield* domains.upsertPending({
              id,
              platformId,
              organizationId: job.organizationId,
              hostname,
              targetDnsRecordId: dnsRecordId,
              target: target.value,
              jobId: job.id
            }, yield* now)
          }))
          yield* context.progress(0.3)
          let status: "pending" | "active" = "pending"
          yield* context.step("hostname", Effect.gen(function*() {
            const routed = yield* edge.addCustomHostname({ platformId, hostname, target: target.value })
            status = routed.status
            yield* domains.routed(id, routed.edgeId, routed.status, yield* now)
          }).pipe(Effect.tapError(() => lastAttempt(job) ? Effect.flatMap(now, (at) => domains.failed(id, at)) : Effect.void)))
          const row = yield* domains.statusOf(id)
          return {
            domainId: id,
            hostname,
            status: Option.isSome(row) ? row.value.status : status,
            verificationStatus: Option.isSome(row) ? row.value.verificationStatus : "pending"
          }
        })
    }
    return new Map([[DOMAIN_ADD, addDomain]])
  })
)
