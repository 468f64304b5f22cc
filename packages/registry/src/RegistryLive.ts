import { Layer } from "effect"
import { Entities } from "./Entities.js"
import { Features } from "./Features.js"
import { Onboarding } from "./Onboarding.js"
import { OnboardingRepo } from "./OnboardingRepo.js"
import { ResourcesLive } from "./ResourcesLive.js"

/**
 * Every service behind `RegistryHandlers` but `Platforms`, which they share and which the host
 * provides (with its `PlatformStatusSink`): entities, resources with their DNS records and secrets,
 * features, onboarding (its `StackDefinitions`, when provided, checks the template a flow names;
 * its `OnboardingOrganizations`, when provided, makes the organization of a flow's user).
 * One layer, so that a host serving the registry's routes needs no list of its services.
 */
export const RegistryServices = Layer.mergeAll(
  Entities.DefaultWithoutDependencies,
  ResourcesLive,
  Features.DefaultWithoutDependencies,
  Onboarding.DefaultWithoutDependencies.pipe(Layer.provide(OnboardingRepo.Default))
)
