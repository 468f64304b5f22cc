import { Config as KernelConfig } from "@core/kernel"
import { Config, ConfigError, Context, Either, Layer, Option } from "effect"

/** How spans are exported, from OpenTelemetry's standard variables (docs/observability.md). */
export interface TelemetrySettings {
  /**
   * Where spans go: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given, else `OTEL_EXPORTER_OTLP_ENDPOINT`
   * with `/v1/traces`. `None` (neither set, `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`):
   * no exporter, no span.
   */
  readonly tracesEndpoint: Option.Option<string>
  /** `OTEL_EXPORTER_OTLP_PROTOCOL` (or `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`). @default "http/protobuf" */
  readonly protocol: "http/protobuf" | "http/json"
  /** `OTEL_BSP_SCHEDULE_DELAY`: milliseconds between two exports of the batch. @default 5000 */
  readonly scheduleDelayMs: number
  /** `OTEL_SERVICE_NAME`. @default `core-<service>` of the process */
  readonly serviceName: Option.Option<string>
  /** `OTEL_RESOURCE_ATTRIBUTES`: `key=value` pairs, comma-separated, values percent-encoded. */
  readonly resourceAttributes: Readonly<Record<string, string>>
  /** `OTEL_TRACES_SAMPLER`. @default "parentbased_always_on" */
  readonly sampler: SamplerName
  /** `OTEL_TRACES_SAMPLER_ARG`: the ratio of the `traceidratio` samplers, 0 to 1. @default 1 */
  readonly samplerArg: number
}

/** The samplers of the OpenTelemetry specification's `OTEL_TRACES_SAMPLER`. */
export const SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio"
] as const

export type SamplerName = typeof SAMPLERS[number]

/** Nothing exported: what an unset environment gives. */
export const DISABLED: TelemetrySettings = {
  tracesEndpoint: Option.none(),
  protocol: "http/protobuf",
  scheduleDelayMs: 5_000,
  serviceName: Option.none(),
  resourceAttributes: {},
  sampler: "parentbased_always_on",
  samplerArg: 1
}

const isHttpUrl = (value: string): boolean => {
  if (!URL.canParse(value)) return false
  const { protocol } = new URL(value)
  return protocol === "http:" || protocol === "https:"
}

const url = (name: string) =>
  Config.option(KernelConfig.setting(name, { test: isHttpUrl, must: "must be an http:// or https:// URL" }))

const protocol = (name: string) =>
  Config.option(KernelConfig.setting(name, {
    test: (value) => value === "http/protobuf" || value === "http/json",
    must: "must be http/protobuf or http/json"
  }))

/** `key=value,key2=value2` with percent-encoded values, or `undefined` when malformed. */
export const parseResourceAttributes = (value: string): Record<string, string> | undefined => {
  const attributes: Record<string, string> = {}
  for (const pair of value.split(",")) {
    if (pair.trim() === "") continue
    const at = pair.indexOf("=")
    if (at <= 0) return undefined
    const key = pair.slice(0, at).trim()
    try {
      attributes[key] = decodeURIComponent(pair.slice(at + 1).trim())
    } catch {
      return undefined
    }
    if (key === "") return undefined
  }
  return attributes
}

const resourceAttributes = Config.map(
  Config.option(KernelConfig.setting("OTEL_RESOURCE_ATTRIBUTES", {
    test: (value) => parseResourceAttributes(value) !== undefined,
    must: "must be key=value pairs separated by commas (values percent-encoded)"
  })),
  Option.match({ onNone: () => ({}), onSome: (value) => parseResourceAttributes(value)! })
)

const flag = (name: string) =>
  Config.map(
    Config.option(KernelConfig.setting(name, {
      test: (value) => ["true", "false"].includes(value.toLowerCase()),
      must: "must be true or false"
    })),
    Option.exists((value) => value.toLowerCase() === "true")
  )

const tracesExporter = Config.option(KernelConfig.setting("OTEL_TRACES_EXPORTER", {
  test: (value) => value === "otlp" || value === "none",
  must: "must be otlp or none (the only trace exporters Core ships)"
}))

const scheduleDelay = Config.withDefault(
  Config.map(KernelConfig.setting("OTEL_BSP_SCHEDULE_DELAY", {
    test: (value) => /^\d{1,7}$/.test(value),
    must: "must be a whole number of milliseconds"
  }), Number),
  DISABLED.scheduleDelayMs
)

const sampler = Config.withDefault(
  Config.map(KernelConfig.setting("OTEL_TRACES_SAMPLER", {
    test: (value) => (SAMPLERS as ReadonlyArray<string>).includes(value),
    must: `must be one of ${SAMPLERS.join(", ")}`
  }), (value) => value as SamplerName),
  DISABLED.sampler
)

const samplerArg = Config.withDefault(
  Config.map(KernelConfig.setting("OTEL_TRACES_SAMPLER_ARG", {
    test: (value) => /^\d+(\.\d+)?$/.test(value) && Number(value) <= 1,
    must: "must be a number from 0 to 1"
  }), Number),
  DISABLED.samplerArg
)

const serviceName = Config.option(KernelConfig.setting("OTEL_SERVICE_NAME", {
  test: (value) => value.length <= 255,
  must: "must be at most 255 characters"
}))

/** `OTEL_EXPORTER_OTLP_ENDPOINT` is a base: the traces path joins it (the specification's rule). */
const tracesUrlOf = (base: string): string => `${base.replace(/\/+$/, "")}/v1/traces`

/** The telemetry settings as a service: `layer` from explicit values (tests), `config` from the environment. */
export class TelemetryConfig extends Context.Tag("@core/server/TelemetryConfig")<TelemetryConfig, TelemetrySettings>() {
  static readonly config: Config.Config<TelemetrySettings> = Config.mapOrFail(
    Config.all({
      disabled: flag("OTEL_SDK_DISABLED"),
      exporter: tracesExporter,
      endpoint: url("OTEL_EXPORTER_OTLP_ENDPOINT"),
      tracesEndpoint: url("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
      protocol: protocol("OTEL_EXPORTER_OTLP_PROTOCOL"),
      tracesProtocol: protocol("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"),
      scheduleDelayMs: scheduleDelay,
      serviceName,
      resourceAttributes,
      sampler,
      samplerArg
    }),
    (read): Either.Either<TelemetrySettings, ConfigError.ConfigError> => {
      const off = read.disabled || Option.exists(read.exporter, (value) => value === "none")
      const endpoint = Option.orElse(read.tracesEndpoint, () => Option.map(read.endpoint, tracesUrlOf))
      const chosen = Option.getOrElse(Option.orElse(read.tracesProtocol, () => read.protocol), () => "http/protobuf")
      if (chosen !== "http/protobuf" && chosen !== "http/json") {
        return Either.left(ConfigError.InvalidData(["OTEL_EXPORTER_OTLP_PROTOCOL"], "OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json"))
      }
      return Either.right({
        tracesEndpoint: off ? Option.none() : endpoint,
        protocol: chosen,
        scheduleDelayMs: read.scheduleDelayMs,
        serviceName: read.serviceName,
        resourceAttributes: read.resourceAttributes,
        sampler: read.sampler,
        samplerArg: read.samplerArg
      })
    }
  )

  static readonly layer = (settings: Partial<TelemetrySettings> = {}): Layer.Layer<TelemetryConfig> =>
    Layer.succeed(TelemetryConfig, { ...DISABLED, ...settings })
}
