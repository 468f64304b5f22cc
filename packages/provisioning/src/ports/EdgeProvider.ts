import { Context, type Effect } from "effect"
import type { JobFailed } from "../JobHandlers.js"

/** A feature of an entity in one environment, as the edge deploys it. */
export interface EdgeFeature {
  readonly platformId: string
  readonly entityId: string
  readonly featureId: string
  readonly featureVersion: string
  readonly environment: string
}

/**
 * The edge cloud provisioning works on (DESIGN §7): the local adapter (default) and, with issue
 * 13, Cloudflare's. Every operation is idempotent (names are deterministic): a retried job
 * creates nothing twice.
 */
export class EdgeProvider extends Context.Tag("@core/provisioning/EdgeProvider")<EdgeProvider, {
  /** The adapter's name (`local`, `cloudflare`). */
  readonly name: string
  /** Deploy a feature for an entity in an environment. */
  readonly activateFeature: (feature: EdgeFeature) => Effect.Effect<void, JobFailed>
  /** Remove it (nothing to do when it is not deployed). */
  readonly deactivateFeature: (feature: Omit<EdgeFeature, "featureVersion">) => Effect.Effect<void, JobFailed>
  /** Stop (`suspended`) or resume (`active`) serving a platform's edge resources. */
  readonly setPlatformStatus: (platformId: string, status: "active" | "suspended") => Effect.Effect<void>
}>() {}
