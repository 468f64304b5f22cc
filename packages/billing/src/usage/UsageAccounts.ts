import type { Billing } from "@core/contracts"
import { Context, type Effect, type Option } from "effect"

/** A platform's billing period and the allowance of each meter in it (`null`: unlimited). */
export interface UsagePeriod {
  readonly start: Date
  readonly end: Date
  readonly allowances: Readonly<Record<Billing.UsageMeter, number | null>>
}

/**
 * What metering needs to know of a platform: who owns it (a tenant reads only its own platform's
 * usage), the platform of an organization (routes without `platformId` act on the caller's own),
 * and its current period with its plan's allowances (alerts, `/usage/current`). The server wires
 * `UsageAccountsLive` (registry platforms, billing's plans and subscriptions); tests a small layer.
 */
export class UsageAccounts extends Context.Tag("@core/billing/UsageAccounts")<UsageAccounts, {
  /** The organization owning a platform (`null`: the operators'); `None` for no such platform. */
  readonly owner: (platformId: string) => Effect.Effect<Option.Option<string | null>>
  /** The platform of an organization, if it has one. */
  readonly platformOf: (organizationId: string) => Effect.Effect<Option.Option<string>>
  /** The billing period containing `at`, with the plan's allowances. */
  readonly period: (platformId: string, at: Date) => Effect.Effect<UsagePeriod>
}>() {}

/** The calendar month (UTC) containing `at`: the period of a platform without a subscription. */
export const calendarMonth = (at: Date): { readonly start: Date; readonly end: Date } => ({
  start: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)),
  end: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1))
})
