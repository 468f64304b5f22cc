import { Context, type Effect } from "effect"

/** The statuses a feature job moves an activation to. */
export type ActivationOutcome = "active" | "failed" | "deactivated"

/**
 * Where a feature job reports its outcome: the registry's activation (`pending → active | failed`,
 * `deactivating → deactivated`). The registry implements it (`@core/registry`'s
 * `FeatureActivationsLive`); the server wires it. An activation that moved on meanwhile (deactivated
 * while its activation job ran) is left as it is.
 */
export class FeatureActivations extends Context.Tag("@core/provisioning/FeatureActivations")<FeatureActivations, {
  readonly settle: (activationId: string, outcome: ActivationOutcome) => Effect.Effect<void>
}>() {}
