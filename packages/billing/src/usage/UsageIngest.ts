import type { Billing } from "@core/contracts"
import { EventOutbox, Metrics } from "@core/kernel"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import { UsageAccounts } from "./UsageAccounts.js"

/** One event as the ingestion API takes it (the contract's `UsageEvent`, parsed). */
export interface UsageEventInput {
  readonly id: string
  readonly platformId: string
  readonly tenantId?: string | undefined
  readonly stackId?: string | undefined
  readonly meter: Billing.UsageMeter
  readonly quantity: number
  /** An ISO 8601 instant. */
  readonly occurredAt: string
}

/** The alert thresholds, in percent of an allowance. */
export const ALERT_THRESHOLDS = [80, 100] as const

/**
 * The one ingestion API of usage metering (decision 0460): the gateway (requests), provisioning
 * (resource-hours) and deploys (builds) call it in process, other processes through
 * `POST /internal/usage/events`. A batch is one statement: the events are inserted by id with
 * `ON CONFLICT DO NOTHING` (a duplicate is accepted and not counted again) and only the rows really
 * inserted are added to the daily rollups, by an atomic `quantity = quantity + excluded.quantity`
 * upsert — concurrent batches for one platform lose no count. Rows are taken in key order so that
 * two batches never wait on each other in a cycle. Then the touched platforms' alerts are raised.
 */
export class UsageIngest extends Effect.Service<UsageIngest>()("@core/billing/UsageIngest", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const accounts = yield* UsageAccounts
    const outbox = yield* Effect.serviceOption(EventOutbox.EventOutbox)
    /** `usage.threshold_reached` for an alert just raised, to the platform's organization (the operators' own tell no one). */
    const tell = (data: {
      readonly platformId: string
      readonly meter: Billing.UsageMeter
      readonly threshold: number
      readonly used: number
      readonly included: number
      readonly periodStart: string
      readonly periodEnd: string
    }) =>
      Effect.gen(function*() {
        if (Option.isNone(outbox)) return
        const owner = yield* accounts.owner(data.platformId)
        if (Option.isNone(owner) || owner.value === null) return
        yield* outbox.value.record({ type: "usage.threshold_reached", organizationId: owner.value, platformId: data.platformId, data })
      })

    const raiseAlerts = Effect.fn("UsageIngest.raiseAlerts")(function*(platformId: string) {
      const period = yield* accounts.period(platformId, new Date(yield* Clock.currentTimeMillis))
      const limited = Object.entries(period.allowances).filter((entry): entry is [Billing.UsageMeter, number] => entry[1] !== null && entry[1] > 0)
      if (limited.length === 0) return
      const rows = yield* sql<{ meter: Billing.UsageMeter; used: string | number }>`SELECT meter, sum(quantity) AS used FROM billing.usage_daily
        WHERE platform_id = ${platformId} AND day >= ${day(period.start)}::date AND day < ${day(period.end)}::date GROUP BY meter`
      const used = new Map(rows.map((row) => [row.meter, Number(row.used)]))
      for (const [meter, allowance] of limited) {
        const total = used.get(meter) ?? 0
        for (const threshold of ALERT_THRESHOLDS) {
          if (total * 100 < allowance * threshold) continue
          // The alert and its event in one transaction; an alert raised before raises nothing.
          yield* sql.withTransaction(Effect.gen(function*() {
            const raised = yield* sql`INSERT INTO billing.usage_alerts (id, platform_id, meter, threshold, allowance, used, period_start, period_end)
              VALUES ('ual_' || replace(gen_random_uuid()::text, '-', ''), ${platformId}, ${meter}, ${threshold}, ${allowance}, ${total},
                ${period.start}, ${period.end})
              ON CONFLICT (platform_id, meter, threshold, period_start) DO NOTHING RETURNING id`
            if (raised.length > 0) {
              yield* tell({
                platformId,
                meter,
                threshold,
                used: total,
                included: allowance,
                periodStart: period.start.toISOString(),
                periodEnd: period.end.toISOString()
              })
            }
          }))
        }
      }
    }, Effect.orDie)

    /** Ingest a batch: answers how many events were counted and how many had been seen before. */
    const ingest = Effect.fn("UsageIngest.ingest")(function*(events: ReadonlyArray<UsageEventInput>) {
      if (events.length === 0) return { accepted: 0, duplicates: 0 }
      const ordered = [...events].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((event) => ({
        id: event.id,
        platformId: event.platformId,
        tenantId: event.tenantId ?? null,
        stackId: event.stackId ?? null,
        meter: event.meter,
        quantity: event.quantity,
        occurredAt: event.occurredAt
      }))
      const counted = yield* sql<{ platformId: string; events: string | number }>`WITH input AS (
          SELECT * FROM jsonb_to_recordset(${JSON.stringify(ordered)}::jsonb)
            AS e(id text, "platformId" text, "tenantId" text, "stackId" text, meter text, quantity bigint, "occurredAt" timestamptz)
        ), inserted AS (
          INSERT INTO billing.usage_events (id, platform_id, tenant_id, stack_id, meter, quantity, occurred_at)
          SELECT id, "platformId", "tenantId", "stackId", meter, quantity, "occurredAt" FROM input ORDER BY id
          ON CONFLICT (id) DO NOTHING
          RETURNING platform_id, tenant_id, stack_id, meter, quantity, occurred_at
        ), rolled AS (
          SELECT platform_id, (occurred_at AT TIME ZONE 'UTC')::date AS day, meter, coalesce(tenant_id, '') AS tenant_id,
            coalesce(stack_id, '') AS stack_id, sum(quantity) AS quantity, count(*) AS events
          FROM inserted GROUP BY 1, 2, 3, 4, 5
        ), upserted AS (
          INSERT INTO billing.usage_daily (platform_id, day, meter, tenant_id, stack_id, quantity)
          SELECT platform_id, day, meter, tenant_id, stack_id, quantity FROM rolled ORDER BY 1, 2, 3, 4, 5
          ON CONFLICT (platform_id, day, meter, tenant_id, stack_id) DO UPDATE SET quantity = billing.usage_daily.quantity + excluded.quantity
        )
        SELECT platform_id AS "platformId", sum(events) AS events FROM rolled GROUP BY platform_id`.pipe(Effect.orDie)
      const accepted = counted.reduce((sum, row) => sum + Number(row.events), 0)
      Metrics.usage.ingested(accepted, events.length - accepted)
      yield* Effect.forEach(counted, (row) => raiseAlerts(row.platformId), { discard: true })
      return { accepted, duplicates: events.length - accepted }
    })

    return { ingest } as const
  })
}) {}

/** A date's calendar day (UTC), `YYYY-MM-DD`. */
export const day = (at: Date): string => at.toISOString().slice(0, 10)
