import { Config as KernelConfig } from "@core/kernel"
import { Config, Context, Effect, Layer } from "effect"

/** How events are kept and webhooks delivered; every value has a default. */
export interface EventsSettings {
  /** Days an event is kept before it is pruned (`CORE_EVENTS_RETENTION_DAYS`, 1 to 3650). @default 30 */
  readonly retentionDays: number
  /**
   * The delay before each attempt of a delivery (`CORE_WEBHOOKS_RETRY_SCHEDULE`, e.g. `0s,5s,5m,30m,2h,5h,10h,10h`):
   * the first is the first attempt's (normally `0s`), each further one follows the previous failure.
   * Its length is the number of attempts. @default 0s,5s,5m,30m,2h,5h,10h,10h
   */
  readonly retryScheduleMs: ReadonlyArray<number>
  /** `CORE_WEBHOOKS_ALLOW_HTTP=1`: endpoints may be plain `http://` (local development and tests). @default false */
  readonly allowHttp: boolean
  /** `CORE_WEBHOOKS_ALLOW_PRIVATE=1`: endpoints may resolve to private, loopback or link-local addresses. @default false */
  readonly allowPrivate: boolean
  /** How long an attempt waits for the receiver's answer (`CORE_WEBHOOKS_TIMEOUT_MS`, 100 to 60 000). @default 15 000 */
  readonly timeoutMs: number
  /** Hours the previous secret keeps signing after a rotation (`CORE_WEBHOOKS_SECRET_OVERLAP_HOURS`, 0 to 720). @default 24 */
  readonly secretOverlapHours: number
  /** How often the relay looks for new events without a wake-up, in milliseconds. @default 250 */
  readonly pollMs: number
  /**
   * How long an endpoint may fail every attempt before it is disabled (`CORE_WEBHOOKS_DISABLE_AFTER`,
   * e.g. `5d`, `36h`; 1 minute to 365 days): measured from its first failed attempt since its last
   * success. @default 5 days
   */
  readonly disableAfterMs: number
}

/** The delays of Standard Webhooks' usual schedule: at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_RETRY_SCHEDULE = "0s,5s,5m,30m,2h,5h,10h,10h"

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }
const DELAY = /^(\d{1,6})(ms|s|m|h|d)$/

/** A schedule's delays in milliseconds (`0s,5s,5m`), or `undefined` when it is not one (1 to 50 delays, each at most 7 days). */
export const parseSchedule = (text: string): ReadonlyArray<number> | undefined => {
  const parts = text.split(",").map((part) => part.trim())
  if (parts.length === 0 || parts.length > 50) return undefined
  const delays = parts.map((part) => {
    const match = DELAY.exec(part)
    return match === null ? Number.NaN : Number(match[1]) * UNITS[match[2]]
  })
  return delays.every((delay) => Number.isFinite(delay) && delay <= 7 * UNITS.d) ? delays : undefined
}

/** A duration such as `5d`, `36h` or `90m` in milliseconds, or `undefined` when it is not one from 1 minute to 365 days. */
export const parseDuration = (text: string): number | undefined => {
  const match = DELAY.exec(text.trim())
  if (match === null) return undefined
  const ms = Number(match[1]) * UNITS[match[2]]
  return ms >= UNITS.m && ms <= 365 * UNITS.d ? ms : undefined
}

export const EVENTS_DEFAULTS: EventsSettings = {
  retentionDays: 30,
  retryScheduleMs: parseSchedule(DEFAULT_RETRY_SCHEDULE)!,
  allowHttp: false,
  allowPrivate: false,
  timeoutMs: 15_000,
  secretOverlapHours: 24,
  pollMs: 250,
  disableAfterMs: 5 * UNITS.d
}

const whole = (name: string, min: number, max: number) =>
  Config.map(
    KernelConfig.setting(name, {
      test: (value) => /^\d{1,7}$/.test(value) && Number(value) >= min && Number(value) <= max,
      must: `must be a whole number from ${min} to ${max}`
    }),
    Number
  )

const flag = (name: string) =>
  Config.withDefault(
    Config.map(KernelConfig.setting(name, { test: (value) => value === "0" || value === "1", must: "must be 0 or 1" }), (value) => value === "1"),
    false
  )

/** The events service's settings: `layer` from explicit values (tests), `layerConfig` from the environment. */
export class EventsConfig extends Context.Tag("@core/events/EventsConfig")<EventsConfig, EventsSettings>() {
  /** The settings read with the current `ConfigProvider`; a bad value fails naming its variable. */
  static readonly config: Config.Config<EventsSettings> = Config.all({
    retentionDays: Config.withDefault(whole("CORE_EVENTS_RETENTION_DAYS", 1, 3650), EVENTS_DEFAULTS.retentionDays),
    retryScheduleMs: Config.withDefault(
      Config.map(
        KernelConfig.setting("CORE_WEBHOOKS_RETRY_SCHEDULE", {
          test: (value) => parseSchedule(value) !== undefined,
          must: "must be 1 to 50 comma-separated delays such as 0s,5s,5m,30m,2h (units ms, s, m, h, d; each at most 7 days)"
        }),
        (value) => parseSchedule(value)!
      ),
      EVENTS_DEFAULTS.retryScheduleMs
    ),
    allowHttp: flag("CORE_WEBHOOKS_ALLOW_HTTP"),
    allowPrivate: flag("CORE_WEBHOOKS_ALLOW_PRIVATE"),
    timeoutMs: Config.withDefault(whole("CORE_WEBHOOKS_TIMEOUT_MS", 100, 60_000), EVENTS_DEFAULTS.timeoutMs),
    secretOverlapHours: Config.withDefault(whole("CORE_WEBHOOKS_SECRET_OVERLAP_HOURS", 0, 720), EVENTS_DEFAULTS.secretOverlapHours),
    pollMs: Config.succeed(EVENTS_DEFAULTS.pollMs),
    disableAfterMs: Config.withDefault(
      Config.map(
        KernelConfig.setting("CORE_WEBHOOKS_DISABLE_AFTER", {
          test: (value) => parseDuration(value) !== undefined,
          must: "must be a duration from 1m to 365d such as 5d, 36h or 90m (units m, h, d)"
        }),
        (value) => parseDuration(value)!
      ),
      EVENTS_DEFAULTS.disableAfterMs
    )
  })

  /** From explicit values; what is left out has its default. */
  static readonly layer = (settings: Partial<EventsSettings> = {}): Layer.Layer<EventsConfig> =>
    Layer.succeed(EventsConfig, { ...EVENTS_DEFAULTS, ...settings })

  /** From the environment (the current `ConfigProvider`). */
  static readonly layerConfig: Layer.Layer<EventsConfig> = Layer.effect(EventsConfig, Effect.orDie(EventsConfig.config))
}
