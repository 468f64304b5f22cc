/**
 * The process's telemetry (docs/observability.md): spans exported over OTLP with the official
 * exporters, through `@effect/opentelemetry`, when the standard variables name an endpoint; with
 * none, nothing — no exporter, no tracer, no `Telemetry` for the runners to find, so that requests
 * build no span (decision 0707).
 */
import { Telemetry } from "@core/kernel"
import { HttpMiddleware } from "@effect/platform"
import { type Attributes, type Context as OtelContext, type Link, SpanKind, trace } from "@opentelemetry/api"
import type { Sampler, SamplingResult } from "@opentelemetry/sdk-trace-base"
import { Duration, Effect, Layer, Option } from "effect"
import type { SamplerName, TelemetrySettings } from "./TelemetryConfig.js"
import { version } from "./Version.js"

/**
 * The OpenTelemetry SDK, its exporters and `@effect/opentelemetry`, imported only when an endpoint
 * is configured: loading them costs a start about 130 ms of CPU, which a process that exports
 * nothing should not pay. Dynamic imports of the packages themselves, so that a bundle (the
 * clone's `core-server`, the published `dist/`) keeps them out of its start too.
 */
export const loadSdk = async () => {
  const [NodeSdk, Resource, OtelTracer, Json, Protobuf, Base] = await Promise.all([
    import("@effect/opentelemetry/NodeSdk"),
    import("@effect/opentelemetry/Resource"),
    import("@effect/opentelemetry/Tracer"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/exporter-trace-otlp-proto"),
    import("@opentelemetry/sdk-trace-base")
  ])
  return { NodeSdk, Resource, OtelTracer, JsonTraceExporter: Json.OTLPTraceExporter, ProtobufTraceExporter: Protobuf.OTLPTraceExporter, Base }
}

/** What {@link loadSdk} answers. */
export type Sdk = Awaited<ReturnType<typeof loadSdk>>

/** The sampler `OTEL_TRACES_SAMPLER` (and its `_ARG`) name. */
export const samplerOf = ({ Base }: Sdk, name: SamplerName, ratio: number): Sampler => {
  switch (name) {
    case "always_on":
      return new Base.AlwaysOnSampler()
    case "always_off":
      return new Base.AlwaysOffSampler()
    case "traceidratio":
      return new Base.TraceIdRatioBasedSampler(ratio)
    case "parentbased_always_on":
      return new Base.ParentBasedSampler({ root: new Base.AlwaysOnSampler() })
    case "parentbased_always_off":
      return new Base.ParentBasedSampler({ root: new Base.AlwaysOffSampler() })
    case "parentbased_traceidratio":
      return new Base.ParentBasedSampler({ root: new Base.TraceIdRatioBasedSampler(ratio) })
  }
}

/**
 * Traces start at requests: a span without a parent that is not a server span (a background
 * loop's SQL, a schedule's poll) is not recorded, so that the worker's and the schedules' steady
 * statements do not each become a trace; every other span is `sampler`'s to decide.
 */
export const requestsOnly = ({ Base }: Sdk, sampler: Sampler): Sampler => ({
  shouldSample: (context: OtelContext, traceId: string, name: string, kind: SpanKind, attributes: Attributes, links: Array<Link>): SamplingResult =>
    trace.getSpanContext(context) === undefined && kind !== SpanKind.SERVER
      ? { decision: Base.SamplingDecision.NOT_RECORD }
      : sampler.shouldSample(context, traceId, name, kind, attributes, links),
  toString: () => `RequestsOnly{${sampler.toString()}}`
})

/** How long shutting down may wait for the last batch to reach the collector. */
const FLUSH_TIMEOUT = Duration.seconds(5)

/**
 * The Effect tracer over the OTel one, set as the process's, and `Telemetry` for the runners. The
 * `@effect/platform` server's generic span (`http.server GET`) is turned off: each catalogued route
 * records its own (`METHOD /route/{param}`), one span per hop.
 */
const tracing = ({ OtelTracer }: Sdk) => Layer.unwrapEffect(
  Effect.map(OtelTracer.make, (tracer) =>
    Layer.mergeAll(
      Layer.setTracer(tracer),
      Layer.locallyScoped(HttpMiddleware.currentTracerDisabledWhen, () => true),
      Layer.succeed(Telemetry.Telemetry, { tracer, externalSpan: (spanContext) => OtelTracer.makeExternalSpan(spanContext) })
    ))
)

/**
 * The telemetry of a process whose default service name is `defaultServiceName` (`core-server`,
 * `core-registry`, …): spans batched (`OTEL_BSP_SCHEDULE_DELAY`) to the OTLP endpoint in the
 * configured protocol, sampled as `OTEL_TRACES_SAMPLER` says, the resource from `OTEL_SERVICE_NAME`
 * and `OTEL_RESOURCE_ATTRIBUTES`; the last batch is flushed when the layer's scope closes
 * (shutdown). Without an endpoint: the empty layer.
 */
export const layer = (settings: TelemetrySettings, defaultServiceName: string): Layer.Layer<never> => {
  if (Option.isNone(settings.tracesEndpoint)) return Layer.empty
  const url = settings.tracesEndpoint.value
  return Layer.unwrapEffect(Effect.map(Effect.promise(loadSdk), (sdk) => exporting(sdk, url, settings, defaultServiceName)))
}

const exporting = (sdk: Sdk, url: string, settings: TelemetrySettings, defaultServiceName: string): Layer.Layer<never> => {
  const { NodeSdk, Resource, OtelTracer, JsonTraceExporter, ProtobufTraceExporter, Base } = sdk
  const exporter = settings.protocol === "http/json" ? new JsonTraceExporter({ url }) : new ProtobufTraceExporter({ url })
  const processor = new Base.BatchSpanProcessor(exporter, { scheduledDelayMillis: settings.scheduleDelayMs })
  const resource = Resource.layer({
    serviceName: Option.getOrElse(settings.serviceName, () => defaultServiceName),
    serviceVersion: version,
    attributes: settings.resourceAttributes
  })
  const provider = NodeSdk.layerTracerProvider(processor, {
    sampler: requestsOnly(sdk, samplerOf(sdk, settings.sampler, settings.samplerArg)),
    shutdownTimeout: FLUSH_TIMEOUT
  })
  return tracing(sdk).pipe(
    Layer.provide(OtelTracer.layerTracer),
    Layer.provide(provider),
    Layer.provide(resource)
  ) as Layer.Layer<never>
}
