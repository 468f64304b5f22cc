import type { Provisioning } from "@core/contracts"
import type { Caller, Callers, Conflict, Forbidden, NotFound, UpstreamUnavailable, ValidationError } from "@core/kernel"
import { Context, type Effect } from "effect"

/** `POST /api/v1/provision/onboard`'s body, parsed (the tier defaulted). */
export type OnboardRequest = Provisioning.ProvisionOnboardRequest & { readonly tier: NonNullable<Provisioning.ProvisionOnboardRequest["tier"]> }

/**
 * Where provisioning's onboard route starts an onboarding flow, or finds the one of its
 * `onboardingId` (decision 0575). The registry implements it (`@core/registry`'s
 * `OnboardingFlowsLive`: the flow, its platform and its `onboard` job in one transaction); the
 * server wires it.
 */
export class OnboardingFlows extends Context.Tag("@core/provisioning/OnboardingFlows")<OnboardingFlows, {
  /**
   * The job of flow `onboardingId`: a new flow's (operators and the service key only), or an
   * existing one's when the body is the one it was started with (409 otherwise) and the caller may
   * manage its platform (404 otherwise).
   */
  readonly onboard: (
    caller: Caller,
    request: OnboardRequest
  ) => Effect.Effect<{ readonly jobId: string }, NotFound | Forbidden | Conflict | ValidationError | UpstreamUnavailable, Callers>
}>() {}
