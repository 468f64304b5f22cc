import { Context, Effect, Layer, Option, Ref } from "effect"
import type { PlanId } from "../Plans.js"

/** What billing knows of a registry platform. */
export interface PlatformView {
  readonly id: string
  /** The organization owning it; `null`: the operators' (an onboarded platform). */
  readonly organizationId: string | null
  readonly tier: PlanId
  readonly status: "active" | "suspended" | "cancelled" | "deleted"
  /** When the registry last changed it (a tier set there after billing's last change is an override). */
  readonly updatedAt: Date
}

/**
 * The registry as billing sees it (DESIGN §7: the subscription is the source of a platform's tier):
 * read a platform, find a tenant's, set its tier, suspend it for an unpaid subscription and
 * restore it once paid. The server implements it over `@core/registry` (`BillingPlatformsLive`).
 */
export class BillingPlatforms extends Context.Tag("@core/billing/BillingPlatforms")<BillingPlatforms, {
  readonly find: (platformId: string) => Effect.Effect<Option.Option<PlatformView>>
  readonly ofOrganization: (organizationId: string) => Effect.Effect<Option.Option<PlatformView>>
  /** Every platform not deleted: the reconciliation of the scheduled job. */
  readonly list: () => Effect.Effect<ReadonlyArray<PlatformView>>
  readonly setTier: (platformId: string, tier: PlanId) => Effect.Effect<void>
  readonly suspend: (platformId: string, reason: string) => Effect.Effect<void>
  readonly restore: (platformId: string) => Effect.Effect<void>
}>() {
  /**
   * An in-memory registry for tests: `platforms` to start with; `state` reads and changes them.
   */
  static readonly memory = (platforms: ReadonlyArray<PlatformView>) =>
    Layer.effect(
      BillingPlatforms,
      Effect.map(Ref.make(new Map(platforms.map((platform) => [platform.id, platform]))), (state) => {
        const change = (id: string, patch: Partial<PlatformView>) =>
          Ref.update(state, (all) => {
            const found = all.get(id)
            return found === undefined ? all : new Map(all).set(id, { ...found, ...patch, updatedAt: new Date() })
          })
        return BillingPlatforms.of({
          find: (id) => Effect.map(Ref.get(state), (all) => Option.fromNullable(all.get(id))),
          ofOrganization: (organizationId) =>
            Effect.map(Ref.get(state), (all) => Option.fromNullable([...all.values()].find((p) => p.organizationId === organizationId && p.status !== "deleted"))),
          list: () => Effect.map(Ref.get(state), (all) => [...all.values()].filter((p) => p.status !== "deleted")),
          setTier: (id, tier) => change(id, { tier }),
          suspend: (id) => change(id, { status: "suspended" }),
          restore: (id) => change(id, { status: "active" })
        })
      })
    )
}
