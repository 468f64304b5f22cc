import * as Path from "node:path"
import { randomUUID } from "node:crypto"
import type { Deploy } from "@core/contracts"
import type { Caller } from "@core/kernel"
import type { PlatformRow } from "@core/registry"
import { Clock, Effect, Option } from "effect"
import { DeploymentsRepo, type RepoRow } from "./DeploymentsRepo.js"
import { repoNotFound } from "./Errors.js"
import { makeKeyedLock } from "./internal/keyedLock.js"
import { platformFor } from "./Policy.js"
import { SourceHost } from "./ports/SourceHost.js"

const toRepoRecord = (row: RepoRow): Deploy.RepoRecord => ({
  platformId: row.platformId,
  repoFullName: row.repoFullName,
  defaultBranch: row.defaultBranch,
  edgePagesProjectName: row.projectName,
  createdAt: row.createdAt,
  cloneUrl: row.cloneUrl
})

/**
 * Platforms' source repositories through the `SourceHost` port: created once (`created`, then
 * `exists` with the same name), holding `core.json`; the pages project is the platform's slug.
 * Concurrent first uses of a platform wait for one creation in this process; across processes the
 * host's create is idempotent and the first row inserted wins (decision 0570).
 */
export class Repos extends Effect.Service<Repos>()("@core/deploy/Repos", {
  effect: Effect.gen(function*() {
    const repo = yield* DeploymentsRepo
    const host = yield* SourceHost

    const find = (platformId: string) => repo.findRepo(platformId)
    const oneAtATime = makeKeyedLock()

    /** The platform's repository, created on first use. */
    const ensureWith = (platform: PlatformRow, extra: Record<string, unknown>) =>
      oneAtATime(platform.id, Effect.gen(function*() {
        const known = yield* repo.findRepo(platform.id)
        if (Option.isSome(known)) return { row: known.value, created: false }
        const made = yield* host.create({
          platformId: platform.id,
          name: platform.slug,
          config: { platformId: platform.id, displayName: platform.name, planTier: platform.tier, ...extra, features: {} }
        })
        const row: RepoRow = {
          platformId: platform.id,
          repoFullName: made.repoFullName,
          defaultBranch: made.defaultBranch,
          projectName: platform.slug,
          cloneUrl: made.cloneUrl,
          createdAt: yield* Clock.currentTimeMillis
        }
        const inserted = yield* repo.insertRepo(row)
        // A repository the host already had (GitHub's 422 "name already exists", another process's
        // rename) answers `exists`; the call that made it answers `created`, whoever's row won.
        if (inserted) return { row, created: made.created }
        return { row: Option.getOrElse(yield* repo.findRepo(platform.id), () => row), created: made.created }
      }))

    const ensure = (platform: PlatformRow) => Effect.map(ensureWith(platform, {}), (result) => result.row)

    const create = Effect.fn("Repos.create")(function*(caller: Caller, body: Deploy.CreateRepoRequest) {
      const platform = yield* platformFor(caller, body.platformId, true)
      const result = yield* ensureWith(platform, { displayName: body.displayName, planTier: body.planTier })
      return { platformId: platform.id, repoFullName: result.row.repoFullName, status: result.created ? "created" as const : "exists" as const }
    })

    const get = Effect.fn("Repos.get")(function*(caller: Caller, platformId: string) {
      yield* platformFor(caller, platformId, false)
      const found = yield* repo.findRepo(platformId)
      if (Option.isNone(found)) return yield* repoNotFound
      return toRepoRecord(found.value)
    })

    /** Commit a change of the platform's `core.json` (feature activations). */
    const updateConfig = (platformId: string, update: (config: Record<string, unknown>) => Record<string, unknown>, message: string) =>
      Effect.gen(function*() {
        const found = yield* repo.findRepo(platformId)
        if (Option.isNone(found)) return
        yield* host.updateConfig({ ...found.value }, update, message)
      })

    /** A branch's `site/` as a gzip tarball in `dir`, answering its path. */
    const archive = (platformId: string, branch: string, dir: string) =>
      Effect.gen(function*() {
        const found = yield* repo.findRepo(platformId)
        if (Option.isNone(found)) return yield* repoNotFound
        const file = Path.join(dir, `${randomUUID()}.tar.gz`)
        yield* host.archive({ ...found.value }, branch, file)
        return file
      })

    return { find, ensure, create, get, updateConfig, archive } as const
  })
}) {}
