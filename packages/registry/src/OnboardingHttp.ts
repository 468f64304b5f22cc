import { Registry } from "@core/contracts"
import { Route } from "@core/kernel"
import { Effect } from "effect"
import { Onboarding } from "./Onboarding.js"

/** The onboarding routes (`Registry.OnboardingRoutes`), one `handle` each. */
export const OnboardingHandlers = [
  Route.handle(Registry.OnboardingRoutes.startOnboarding, ({ body, caller }) =>
    Effect.gen(function*() {
      const onboarding = yield* Onboarding
      const flow = yield* onboarding.start(caller, body)
      return Route.json(flow, { status: 202, headers: { location: `/api/v1/onboarding/${flow.id}` } })
    })),
  Route.handle(Registry.OnboardingRoutes.getOnboarding, ({ caller, params }) =>
    Effect.gen(function*() {
      const onboarding = yield* Onboarding
      return yield* onboarding.read(caller, params.onboardingId)
    }))
]
