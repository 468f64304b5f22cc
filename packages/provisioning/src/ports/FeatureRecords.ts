import type { InvalidState, NotFound } from "@core/kernel"
import { Context, type Effect } from "effect"

/** A feature of an entity in one environment, as a direct `feature/activate` or `feature/deactivate` names it. */
export interface FeatureTarget {
  readonly platformId: string
  readonly entityId: string
  readonly featureId: string
  readonly environment: string
}

/**
 * The registry's feature activations as provisioning's direct feature routes move them (decision
 * 0289). Both run inside provisioning's transaction, before and after the job is enqueued, so the
 * activation and its job exist together or not at all. The registry implements it
 * (`@core/registry`'s `FeatureRecordsLive`); the feature jobs then settle the activation through
 * `FeatureActivations` as for the registry's own routes.
 */
export class FeatureRecords extends Context.Tag("@core/provisioning/FeatureRecords")<FeatureRecords, {
  /**
   * The entity's live activation of the feature made `pending` at `featureVersion` (created when
   * there is none); its id. No such entity: 404; an activation being deactivated: 409.
   */
  readonly activate: (target: FeatureTarget & { readonly featureVersion: string }) => Effect.Effect<string, NotFound | InvalidState>
  /**
   * The entity's live activation of the feature made `deactivating`, with its version; 404 when
   * the feature is not active there.
   */
  readonly deactivate: (target: FeatureTarget) => Effect.Effect<{ readonly activationId: string; readonly featureVersion: string }, NotFound>
  /** Record the job that moves the activation. */
  readonly attachJob: (activationId: string, jobId: string) => Effect.Effect<void>
}>() {}
