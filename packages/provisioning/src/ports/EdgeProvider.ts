import { Context, type Effect, type Redacted } from "effect"
import type { JobFailed } from "../JobHandlers.js"

/** A feature of an entity in one environment, as the edge deploys it. */
export interface EdgeFeature {
  readonly platformId: string
  readonly entityId: string
  readonly featureId: string
  readonly featureVersion: string
  readonly environment: string
}

/** The kinds of resource the edge makes (the registry's `resourceType`). */
export type EdgeResourceType = "worker" | "pages" | "sql_db" | "object_store" | "kv" | "queue"

/** A resource as the edge creates it; edgeName is deterministic so a retried job finds what it made. */
export interface EdgeResourceSpec {
  readonly platformId: string
  readonly resourceType: EdgeResourceType
  readonly edgeName: string
  readonly environment: "dev" | "stg" | "prod"
  readonly config: Record<string, unknown>
}

/** What the edge answers for a resource it made: its own id and, when it serves, its URL. */
export interface EdgeResourceHandle {
  readonly edgeId: string
  readonly edgeUrl: string | null
}

/** A resource as the edge lists it. */
export type EdgeResourceListing = EdgeResourceHandle & {
  readonly resourceType: EdgeResourceType
  readonly edgeName: string
}

/**
 * The edge cloud provisioning works on (DESIGN §7): the local adapter (default) and Cloudflare's.
 * Every operation is idempotent (names are deterministic): a retried job creates nothing twice.
 */
export class EdgeProvider extends Context.Tag("@core/provisioning/EdgeProvider")<EdgeProvider, {
  /** The adapter's name (`local`, `cloudflare`). */
  readonly name: string
  /** Deploy a feature for an entity in an environment. */
  readonly activateFeature: (feature: EdgeFeature) => Effect.Effect<void, JobFailed>
  /**
   * Remove it (nothing to do when it is not deployed); `deleteData` also drops the data the
   * feature kept at the edge (its database, object store and key-value namespace), else they stay
   * for a later activation (decision 0313). @default { deleteData: false }
   */
  readonly deactivateFeature: (
    feature: Omit<EdgeFeature, "featureVersion">,
    options?: { readonly deleteData: boolean }
  ) => Effect.Effect<void, JobFailed>
  /** Stop (`suspended`) or resume (`active`) serving a platform's edge resources. */
  readonly setPlatformStatus: (platformId: string, status: "active" | "suspended") => Effect.Effect<void, JobFailed>
  /** Make a resource, or answer the one of that name made before (idempotent). */
  readonly createResource: (spec: EdgeResourceSpec) => Effect.Effect<EdgeResourceHandle, JobFailed>
  /** Remove a resource (absent: nothing to do); `deleteData` also drops what it holds. */
  readonly deleteResource: (
    spec: Pick<EdgeResourceSpec, "platformId" | "resourceType" | "edgeName">,
    options: { readonly deleteData: boolean }
  ) => Effect.Effect<void, JobFailed>
  /** A platform's resources on the edge. */
  readonly listResources: (platformId: string) => Effect.Effect<ReadonlyArray<EdgeResourceListing>, JobFailed>
  /**
   * Set a secret of a platform's worker at the edge (idempotent by name: a second set replaces the
   * value). The value is never logged nor answered; a worker the edge does not have fails.
   */
  readonly setWorkerSecret: (input: {
    readonly platformId: string
    readonly edgeName: string
    readonly name: string
    readonly value: Redacted.Redacted<string>
  }) => Effect.Effect<void, JobFailed>
  /** Route a custom hostname to `target` (idempotent by hostname); `pending` until verified. */
  readonly addCustomHostname: (input: {
    readonly platformId: string
    readonly hostname: string
    readonly target: string
  }) => Effect.Effect<{ readonly edgeId: string; readonly status: "pending" | "active" }, JobFailed>
  /** Stop routing a custom hostname (absent: nothing to do). */
  readonly removeCustomHostname: (input: { readonly platformId: string; readonly edgeId: string }) => Effect.Effect<void, JobFailed>
}>() {}
