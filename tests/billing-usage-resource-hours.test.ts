import { BillingMigrations, calendarMonth, UsageAccounts, UsageIngest } from "@core/billing"
import { LiveResources, ResourceHours, UsageReporter } from "@core/provisioning"
import { TestDatabase } from "@core/kernel/testing"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "./support/poll.js"

/**
 * Provisioning's resource-hours reach billing's ingestion (decision 0465): one event per live
 * resource and hour, billed to its platform, entity (tenant) and stack; an hour reported again
 * (a restarted process, a second server) counts nothing twice.
 */

const HOUR = 3_600_000
const resources = [
  { id: "res_1", platformId: "plt_a", entityId: "ent_1", stackId: "stk_1" },
  { id: "res_2", platformId: "plt_a", entityId: "ent_2", stackId: "stk_1" },
  { id: "res_3", platformId: "plt_b", entityId: "ent_3", stackId: "stk_2" }
]
const asked: Array<[string, string]> = []

const Live = Layer.succeed(LiveResources, {
  during: (from, to) => Effect.sync(() => (asked.push([from.toISOString(), to.toISOString()]), resources))
})
const Accounts = Layer.succeed(UsageAccounts, {
  owner: () => Effect.succeed(Option.some("org_a")),
  platformOf: () => Effect.succeed(Option.none()),
  period: (_platformId, at) => Effect.succeed({ ...calendarMonth(at), allowances: { requests: null, resource_hours: null, builds: null } })
})
const Reporter = Layer.effect(UsageReporter, Effect.map(UsageIngest, (ingest) => ({ report: (events) => Effect.asVoid(ingest.ingest(events)) })))

describe(`resource-hours reported by provisioning on ${TestDatabase.driver}`, () => {
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(Live, Reporter).pipe(Layer.provideMerge(UsageIngest.Default), Layer.provide(Accounts), Layer.provideMerge(TestDatabase.layer([BillingMigrations])))
  )
  const rollups = () =>
    runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ platformId: string; tenantId: string; stackId: string; quantity: string }>`SELECT platform_id AS "platformId", tenant_id AS "tenantId",
        stack_id AS "stackId", quantity::text FROM billing.usage_daily WHERE meter = 'resource_hours' ORDER BY platform_id, tenant_id`))

  beforeAll(() => runtime.runPromise(Effect.void), 60_000)
  afterAll(() => runtime.dispose())

  it("reports one event per live resource and hour, once", async () => {
    const hour = ResourceHours.hourOf(Date.parse("2026-03-04T10:17:00Z"))
    expect(new Date(hour).toISOString()).toBe("2026-03-04T10:00:00.000Z")
    expect(await runtime.runPromise(ResourceHours.reportHour(hour))).toBe(3)
    expect(asked).toEqual([["2026-03-04T10:00:00.000Z", "2026-03-04T11:00:00.000Z"]])
    expect(await runtime.runPromise(ResourceHours.reportHour(hour))).toBe(3)
    expect(await runtime.runPromise(ResourceHours.reportHour(hour + HOUR))).toBe(3)
    expect(await rollups()).toEqual([
      { platformId: "plt_a", tenantId: "ent_1", stackId: "stk_1", quantity: "2" },
      { platformId: "plt_a", tenantId: "ent_2", stackId: "stk_1", quantity: "2" },
      { platformId: "plt_b", tenantId: "ent_3", stackId: "stk_2", quantity: "2" }
    ])
    expect(ResourceHours.eventsOf(hour, resources.slice(0, 1))).toEqual([{
      id: `rh_res_1_${hour / HOUR}`, platformId: "plt_a", tenantId: "ent_1", stackId: "stk_1", meter: "resource_hours", quantity: 1,
      occurredAt: "2026-03-04T10:00:00.000Z"
    }])
  })

  it("the reporter reports the hour before it started at once", async () => {
    asked.length = 0
    const reporter = ManagedRuntime.make(ResourceHours.layer({ every: "1 hour" }).pipe(Layer.provide(Layer.mergeAll(Live, Layer.succeed(UsageReporter, { report: () => Effect.void })))))
    await reporter.runPromise(Effect.void)
    await eventually(() => asked.length, (count) => count > 0, { message: "the reporter's first question", timeout: 5_000, interval: 10 })
    await reporter.dispose()
    const previous = ResourceHours.hourOf(Date.now()) - HOUR
    expect(asked[0]).toEqual([new Date(previous).toISOString(), new Date(previous + HOUR).toISOString()])
  })
})
