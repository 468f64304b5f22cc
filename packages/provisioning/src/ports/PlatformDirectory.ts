import { Context, type Effect, type Option } from "effect"

/** What provisioning needs to know of a platform to let a caller create its jobs. */
export interface PlatformOwnership {
  readonly platformId: string
  /** The organization owning it; `null`: the operators' (an onboarded platform, say). */
  readonly organizationId: string | null
  /** Deleted (status `deleted` or soft-deleted): only its deprovision may still be asked. */
  readonly deleted: boolean
  /** Its lifecycle status (`active`, `suspended`, …): jobs that make something need it `active`. */
  readonly status: string
}

/**
 * Where provisioning learns who owns a platform, for the job-creating routes. The registry implements it (`@core/registry`'s `PlatformDirectoryLive`);
 * the server wires it.
 */
export class PlatformDirectory extends Context.Tag("@core/provisioning/PlatformDirectory")<PlatformDirectory, {
  readonly platform: (platformId: string) => Effect.Effect<Option.Option<PlatformOwnership>>
}>() {}
