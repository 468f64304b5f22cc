import type { UpstreamUnavailable } from "@core/kernel"
import { Context, type Effect } from "effect"

/** A repository as the source host answers it. */
export interface SourceRepo {
  readonly repoFullName: string
  readonly defaultBranch: string
  /** Where `git clone` reaches it. */
  readonly cloneUrl: string
}

/** What `create` answers: the repository, and whether this call made it (`false`: it was there). */
export type CreatedRepo = SourceRepo & { readonly created: boolean }

/** What a new repository starts with: the platform's configuration file, `core.json`. */
export interface NewSourceRepo {
  readonly platformId: string
  readonly name: string
  readonly config: Record<string, unknown>
}

/** A source host's failure (unreachable, refused): 502 `UPSTREAM_UNAVAILABLE`. */
export type SourceHostError = UpstreamUnavailable

/**
 * Where platforms' source repositories live (DESIGN §7): local bare git repositories (default)
 * or GitHub (decision 0489). `create` is idempotent by name; `updateConfig` commits a change of `core.json`.
 */
export class SourceHost extends Context.Tag("@core/deploy/SourceHost")<SourceHost, {
  readonly name: string
  readonly create: (repo: NewSourceRepo) => Effect.Effect<CreatedRepo, SourceHostError>
  readonly updateConfig: (
    repo: SourceRepo,
    update: (config: Record<string, unknown>) => Record<string, unknown>,
    message: string
  ) => Effect.Effect<void, SourceHostError>
  /** The `site/` directory of a branch as a gzip tarball written to `file`. */
  readonly archive: (repo: SourceRepo, branch: string, file: string) => Effect.Effect<void, SourceHostError>
}>() {}
