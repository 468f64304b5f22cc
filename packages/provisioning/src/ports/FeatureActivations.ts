import { Context, type Effect } from "effect"

/**
 * What a feature job makes of its activation: `active` or `failed` (from `pending`), `deactivated`
 * (from `deactivating`), or `restored` (`deactivating → active`: its deactivation job cancelled by an
 * operator; decision 0312).
 */
export type ActivationOutcome = "active" | "failed" | "deactivated" | "restored"

/**
 * Where a feature job reports its outcome: the registry's activation (`pending → active | failed`,
 * `deactivating → deactivated | active`). The registry implements it (`@core/registry`'s
 * `FeatureActivationsLive`); the server wires it. An activation that moved on meanwhile (deactivated
 * while its activation job ran) is left as it is.
 */
export class FeatureActivations extends Context.Tag("@core/provisioning/FeatureActivations")<FeatureActivations, {
  readonly settle: (activationId: string, outcome: ActivationOutcome) => Effect.Effect<void>
}>() {}
