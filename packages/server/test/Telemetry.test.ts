import { Telemetry as KernelTelemetry } from "@core/kernel"
import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from "@opentelemetry/api"
import { SamplingDecision } from "@opentelemetry/sdk-trace-base"
import { Context, Effect, Either, Option } from "effect"
import { readFileSync } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import * as Settings from "../src/Settings.js"
import * as Telemetry from "../src/Telemetry.js"
import { DISABLED, parseResourceAttributes, TelemetryConfig } from "../src/TelemetryConfig.js"

const load = (env: Record<string, string>) => Effect.runSync(Effect.either(Settings.load({ NODE_ENV: "test", ...env })))

const telemetryOf = (env: Record<string, string>) => Context.get(Either.getOrThrow(load(env)).domains, TelemetryConfig)

const message = (env: Record<string, string>) => Either.getLeft(load(env)).pipe(Option.getOrThrow).message

describe("telemetry settings", () => {
  it("export nothing when no endpoint is set", () => {
    expect(telemetryOf({})).toEqual(DISABLED)
  })

  it("read the standard OTEL_* variables", () => {
    expect(telemetryOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "200",
      OTEL_SERVICE_NAME: "edge",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=prod,team=a%2Cb",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25"
    })).toEqual({
      tracesEndpoint: Option.some("http://collector:4318/v1/traces"),
      protocol: "http/json",
      scheduleDelayMs: 200,
      serviceName: Option.some("edge"),
      resourceAttributes: { "deployment.environment.name": "prod", team: "a,b" },
      sampler: "parentbased_traceidratio",
      samplerArg: 0.25
    })
    expect(telemetryOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://b/traces" }).tracesEndpoint)
      .toEqual(Option.some("https://b/traces"))
    expect(telemetryOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318" }).protocol).toBe("http/protobuf")
  })

  it("are each listed in .env.example", () => {
    const example = readFileSync(new URL("../../../.env.example", import.meta.url), "utf8")
    const names = [
      "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
      "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_BSP_SCHEDULE_DELAY", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES",
      "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG", "OTEL_TRACES_EXPORTER", "OTEL_SDK_DISABLED"
    ]
    for (const name of names) expect(example).toMatch(new RegExp(`^#? ?${name}=`, "m"))
  })

  it("turn off with OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none", () => {
    expect(telemetryOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_SDK_DISABLED: "true" }).tracesEndpoint).toEqual(Option.none())
    expect(telemetryOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_TRACES_EXPORTER: "none" }).tracesEndpoint).toEqual(Option.none())
  })

  it("stop the start naming a bad variable", () => {
    expect(message({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toContain("OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json")
    expect(message({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toContain("OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL")
    expect(message({ OTEL_TRACES_SAMPLER: "sometimes" })).toContain("OTEL_TRACES_SAMPLER must be one of")
    expect(message({ OTEL_TRACES_SAMPLER_ARG: "2" })).toContain("OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1")
    expect(message({ OTEL_RESOURCE_ATTRIBUTES: "novalue" })).toContain("OTEL_RESOURCE_ATTRIBUTES must be key=value pairs")
    expect(parseResourceAttributes("a=%E0%A4%A")).toBeUndefined()
  })

  it("give the empty layer without an endpoint: no Telemetry for the runners, no exporter", async () => {
    const found = await Effect.runPromise(Effect.scoped(
      Effect.provide(Effect.serviceOption(KernelTelemetry.Telemetry), Telemetry.layer(DISABLED, "core-server"))
    ))
    expect(found).toEqual(Option.none())
  })

  it("give the runners Telemetry with an endpoint, its tracer the process's", async () => {
    const settings = { ...DISABLED, tracesEndpoint: Option.some("http://127.0.0.1:9/v1/traces") }
    const [found, tracer] = await Effect.runPromise(Effect.scoped(
      Effect.provide(Effect.zip(Effect.serviceOption(KernelTelemetry.Telemetry), Effect.tracer), Telemetry.layer(settings, "core-server"))
    ))
    expect(Option.isSome(found)).toBe(true)
    expect(Option.getOrThrow(found).tracer).toBe(tracer)
  })

  it("start traces at requests only: a root span that is not a server span is not recorded", async () => {
    const sdk = await Telemetry.loadSdk()
    const sampler = Telemetry.requestsOnly(sdk, Telemetry.samplerOf(sdk, "parentbased_always_on", 1))
    const trace1 = "4bf92f3577b34da6a3ce929d0e0e4736"
    expect(sampler.shouldSample(ROOT_CONTEXT, trace1, "sql.execute", SpanKind.CLIENT, {}, []).decision).toBe(SamplingDecision.NOT_RECORD)
    expect(sampler.shouldSample(ROOT_CONTEXT, trace1, "GET /api/v1/stacks", SpanKind.SERVER, {}, []).decision).toBe(SamplingDecision.RECORD_AND_SAMPLED)
    const parent = trace.setSpanContext(ROOT_CONTEXT, { traceId: trace1, spanId: "00f067aa0ba902b7", traceFlags: TraceFlags.SAMPLED, isRemote: false })
    expect(sampler.shouldSample(parent, trace1, "sql.execute", SpanKind.CLIENT, {}, []).decision).toBe(SamplingDecision.RECORD_AND_SAMPLED)
    const ratio = Telemetry.samplerOf(sdk, "parentbased_traceidratio", 0)
    expect(ratio.shouldSample(ROOT_CONTEXT, trace1, "GET /", SpanKind.SERVER, {}, []).decision).toBe(SamplingDecision.NOT_RECORD)
  })

  it("flush the last batch when the scope closes (shutdown), long before the batch delay", async () => {
    const bodies: Array<{ readonly type: string; readonly body: string }> = []
    const receiver = http.createServer((request, response) => {
      let body = ""
      request.setEncoding("utf8").on("data", (chunk: string) => (body += chunk)).on("end", () => {
        bodies.push({ type: request.headers["content-type"] ?? "", body })
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`
      const settings = { ...DISABLED, tracesEndpoint: Option.some(url), protocol: "http/json" as const, scheduleDelayMs: 600_000 }
      await Effect.runPromise(Effect.scoped(
        Effect.provide(Effect.withSpan(Effect.void, "GET /flushed", { kind: "server" }), Telemetry.layer(settings, "core-test"))
      ))
      expect(bodies).toHaveLength(1)
      expect(bodies[0]!.type).toContain("application/json")
      expect(bodies[0]!.body).toContain("GET /flushed")
      expect(bodies[0]!.body).toContain("core-test")
    } finally {
      await new Promise((resolve) => receiver.close(resolve))
    }
  })
})
