import { AuthorizationLive, OrgSetup } from "@core/auth"
import { Conflict, Policy, ValidationError } from "@core/kernel"
import { OnboardingOrganizations } from "@core/registry"
import { Effect, Layer, Option } from "effect"
import { PlatformSetupLive } from "./PlatformSetupLive.js"

const noSuchUser = new ValidationError({ message: "Invalid request body", issues: [{ path: "userId", message: "No user has this id" }] })
const slugTaken = new Conflict({ message: "Platform slug already taken", details: { field: "slug" } })

/**
 * The registry's `OnboardingOrganizations` served by identity's organization setup in process, on
 * the shared database and inside the onboarding's transaction (decision 0576): a new organization
 * of the flow's user, owned by them, with its default role mappings and its one platform on the
 * flow's tier (made by `PlatformSetupLive`, so billing makes its subscription at once). The audit
 * log records the caller who started the onboarding.
 */
export const OnboardingOrganizationsLive = Layer.effect(
  OnboardingOrganizations,
  Effect.map(OrgSetup, (setup) =>
    OnboardingOrganizations.of({
      create: (caller, organization) =>
        setup.setupForUser(
          { name: organization.name, slug: organization.slug, ownerId: organization.ownerUserId, orgType: "tenant", tier: organization.tier },
          Policy.actorOf(caller)
        ).pipe(
          // The one refusal of a tenant's setup: its slug is an organization's or a platform's already.
          Effect.catchTag("OrganizationError", () => Effect.fail(slugTaken)),
          Effect.flatMap(Option.match({
            onNone: () => Effect.fail(noSuchUser),
            onSome: (result) =>
              result.platformId === null
                ? Effect.dieMessage("a tenant organization was set up without its platform")
                : Effect.succeed({ organizationId: result.organization.id, platformId: result.platformId })
          }))
        )
    }))
).pipe(Layer.provide(OrgSetup.Default), Layer.provide(PlatformSetupLive), Layer.provide(AuthorizationLive))
