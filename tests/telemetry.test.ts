import { mkdtempSync, rmSync } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { core, tempHome } from "../packages/cli/test/login-support.js"
import { launch, migratedDataDir, ready, type Running } from "../packages/server/test/ServerProcess.js"
import { Embedded } from "../packages/server/src/index.js"
import { eventually } from "./support/poll.js"
import { tenantOf } from "./support/tenants.js"

/**
 * One trace across processes, as a collector receives it: a local OTLP receiver (a real HTTP
 * server decoding what the official exporters send: OTLP/JSON from the gateway's process,
 * OTLP/protobuf from the registry's, decoded with the protobuf definitions the exporter packages
 * carry), a gateway (`core-server start`, every other service in its process) and the registry
 * alone (`core-server serve --service registry`) behind it.
 */
const SLOW = 180_000
const STATIC_KEY = "telemetry-static-key-0123456789abcdef"
const SECRET = "telemetry-secret-telemetry-secret-0123456789"
const INBOUND_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
const INBOUND_SPAN = "00f067aa0ba902b7"

const require = createRequire(import.meta.url)
const protobuf = require("@opentelemetry/otlp-transformer/build/src/generated/root.js") as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: { decode: (bytes: Uint8Array) => OtlpRequest } } } } } }
}
const ExportTraceServiceRequest = protobuf.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest

interface AnyValue {
  readonly stringValue?: string
  readonly intValue?: number | string | { toString(): string }
  readonly boolValue?: boolean
}
interface OtlpSpan {
  readonly traceId: string | Uint8Array
  readonly spanId: string | Uint8Array
  readonly parentSpanId?: string | Uint8Array
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: AnyValue }>
  readonly status?: { readonly code?: number }
}
interface OtlpRequest {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource: { readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: AnyValue }> }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<OtlpSpan> }>
  }>
}

/** A span as the tests read it. */
interface Span {
  readonly service: string
  readonly resource: Record<string, string | number | boolean | undefined>
  readonly protocol: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string
  readonly name: string
  readonly kind: number
  readonly attributes: Record<string, string | number | boolean | undefined>
  readonly status: number
}

const hex = (id: string | Uint8Array | undefined): string =>
  id === undefined ? "" : typeof id === "string" ? id : Buffer.from(id).toString("hex")

const valueOf = (value: AnyValue) =>
  value.stringValue ?? (value.intValue === undefined ? value.boolValue : Number(value.intValue.toString()))

const attributesOf = (list: ReadonlyArray<{ readonly key: string; readonly value: AnyValue }>) =>
  Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]))

const spansOf = (request: OtlpRequest, protocol: string): Array<Span> =>
  request.resourceSpans.flatMap((resource) => {
    const attributes = attributesOf(resource.resource.attributes)
    const service = String(attributes["service.name"])
    return resource.scopeSpans.flatMap((scope) =>
      scope.spans.map((span) => ({
        service,
        resource: attributes,
        protocol,
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: hex(span.parentSpanId),
        name: span.name,
        kind: span.kind,
        attributes: attributesOf(span.attributes),
        status: span.status?.code ?? 0
      }))
    )
  })

/** The OTLP receiver: every span any exporter sent, with the protocol it came in. */
const receiver = () => {
  const spans: Array<Span> = []
  const contentTypes = new Set<string>()
  const server = http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const body = Buffer.concat(chunks)
      const type = request.headers["content-type"] ?? ""
      contentTypes.add(type)
      if (request.url === "/v1/traces" && type.startsWith("application/json")) {
        spans.push(...spansOf(JSON.parse(body.toString("utf8")) as OtlpRequest, "json"))
      } else if (request.url === "/v1/traces" && type.startsWith("application/x-protobuf")) {
        spans.push(...spansOf(ExportTraceServiceRequest.decode(body), "protobuf"))
      }
      response.writeHead(200, { "content-type": type.startsWith("application/json") ? "application/json" : "application/x-protobuf" })
      response.end(type.startsWith("application/json") ? "{}" : undefined)
    })
  })
  return { server, spans, contentTypes }
}

const otlp = receiver()
const work = mkdtempSync(join(tmpdir(), "core-e2e-telemetry-"))
let registry: Running
let gateway: Running
let base = ""

/** The spans of a trace once `holds` says they are all there. */
const traceOf = (traceId: string, holds: (spans: ReadonlyArray<Span>) => boolean) =>
  eventually(() => otlp.spans.filter((span) => span.traceId === traceId), holds, {
    message: () => `the spans of trace ${traceId} (received: ${otlp.spans.map((span) => `${span.service} ${span.name}`).join(", ")})`,
    timeout: 20_000
  })

const named = (spans: ReadonlyArray<Span>, service: string, name: string) =>
  spans.find((span) => span.service === service && span.name === name)

beforeAll(async () => {
  await new Promise<void>((resolve) => otlp.server.listen(0, "127.0.0.1", resolve))
  const endpoint = `http://127.0.0.1:${(otlp.server.address() as AddressInfo).port}`
  const exported = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: "50" }
  registry = launch(["serve", "--service", "registry", "--port", "0"], {
    CORE_DATA_DIR: await migratedDataDir(join(work, "registry")),
    CORE_SECRET: SECRET,
    ...exported
  })
  const registryUrl = await ready(registry)
  gateway = launch(["start"], {
    PORT: "0",
    CORE_DATA_DIR: await migratedDataDir(join(work, "gateway")),
    CORE_SECRET: SECRET,
    CORE_STATIC_API_KEY: STATIC_KEY,
    CORE_UPSTREAM_REGISTRY_URL: registryUrl,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=test,team=platform%20ops",
    ...exported
  })
  base = await ready(gateway)
}, SLOW)

afterAll(async () => {
  registry?.child.kill("SIGKILL")
  gateway?.child.kill("SIGKILL")
  await new Promise((resolve) => otlp.server.close(resolve))
  rmSync(work, { recursive: true, force: true })
})

const service = { authorization: `Bearer ${STATIC_KEY}` }

describe("traces over OTLP", () => {
  it("continues a request's traceparent through the gateway into the registry's process, its SQL included", async () => {
    const created = await fetch(`${base}/api/v1/platforms`, {
      method: "POST",
      headers: { ...service, "content-type": "application/json", traceparent: `00-${INBOUND_TRACE}-${INBOUND_SPAN}-01`, "x-request-id": "req-telemetry-1" },
      body: JSON.stringify({ name: "Traced", slug: "traced-platform" })
    })
    expect(created.status).toBe(201)
    expect(created.headers.get("x-core-trace-id")).toBe(INBOUND_TRACE)

    const spans = await traceOf(INBOUND_TRACE, (found) =>
      named(found, "core-server", "POST /api/v1/platforms") !== undefined &&
      named(found, "core-registry", "POST /api/v1/platforms") !== undefined &&
      found.some((span) => span.service === "core-registry" && span.name === "sql.execute"))
    const edge = named(spans, "core-server", "POST /api/v1/platforms")!
    const upstream = named(spans, "core-registry", "POST /api/v1/platforms")!
    expect(edge).toMatchObject({ protocol: "json", kind: 2, parentSpanId: INBOUND_SPAN, status: 1 })
    expect(edge.attributes).toMatchObject({
      "http.route": "/api/v1/platforms",
      "http.request.method": "POST",
      "http.response.status_code": 201,
      "core.request_id": "req-telemetry-1"
    })
    expect(upstream).toMatchObject({ protocol: "protobuf", kind: 2, parentSpanId: edge.spanId, status: 1 })
    expect(upstream.attributes).toMatchObject({ "http.route": "/api/v1/platforms", "http.response.status_code": 201 })

    const statements = spans.filter((span) => span.service === "core-registry" && span.name === "sql.execute")
    const insert = statements.find((span) => String(span.attributes["db.query.text"]).toLowerCase().includes("insert"))
    expect(insert).toBeDefined()
    expect(insert!.attributes["db.system.name"]).toBe("postgresql")
    // The statement's text, never its values.
    expect(String(insert!.attributes["db.query.text"])).not.toContain("traced-platform")
    const ids = new Set(spans.map((span) => span.spanId))
    for (const statement of statements) expect(ids.has(statement.parentSpanId)).toBe(true)
    expect(otlp.contentTypes).toContain("application/x-protobuf")
  }, SLOW)

  it("names spans from the route template (never the id), and the in-process service's span is the gateway's child", async () => {
    const created = await fetch(`${base}/api/v1/platforms`, {
      method: "POST",
      headers: { ...service, "content-type": "application/json" },
      body: JSON.stringify({ name: "Named", slug: "named-platform" })
    })
    const { id } = (await created.json()) as { id: string }
    const read = await fetch(`${base}/api/v1/platforms/${id}`, { headers: service })
    expect(read.status).toBe(200)
    const traceId = read.headers.get("x-core-trace-id")!
    expect(traceId).toMatch(/^[0-9a-f]{32}$/)
    const spans = await traceOf(traceId, (found) =>
      named(found, "core-server", "GET /api/v1/platforms/{platformId}") !== undefined &&
      named(found, "core-registry", "GET /api/v1/platforms/{platformId}") !== undefined)
    const edge = named(spans, "core-server", "GET /api/v1/platforms/{platformId}")!
    expect(edge.parentSpanId).toBe("")
    expect(edge.attributes["http.route"]).toBe("/api/v1/platforms/{platformId}")
    expect(spans.every((span) => !span.name.includes(id))).toBe(true)

    const stacks = await fetch(`${base}/api/v1/stacks`, { headers: service })
    expect(stacks.status).toBe(200)
    const stacksTrace = stacks.headers.get("x-core-trace-id")!
    const inProcess = await traceOf(stacksTrace, (found) => found.filter((span) => span.name === "GET /api/v1/stacks").length === 2)
    const outer = inProcess.find((span) => span.name === "GET /api/v1/stacks" && span.parentSpanId === "")
    const inner = inProcess.find((span) => span.name === "GET /api/v1/stacks" && span.parentSpanId !== "")
    expect(outer!.service).toBe("core-server")
    expect(inner).toMatchObject({ service: "core-server", parentSpanId: outer!.spanId, kind: 2 })
    expect(inner!.attributes["http.response.status_code"]).toBe(200)
  }, SLOW)

  it("records the resource: OTEL_SERVICE_NAME's default per process, and OTEL_RESOURCE_ATTRIBUTES", () => {
    const gatewaySpan = otlp.spans.find((span) => span.service === "core-server")!
    expect(gatewaySpan.resource).toMatchObject({ "deployment.environment.name": "test", team: "platform ops" })
    expect(gatewaySpan.resource["service.version"]).toMatch(/^\d+\.\d+\.\d+/)
    expect(otlp.spans.some((span) => span.service === "core-registry" && span.protocol === "protobuf")).toBe(true)
    expect(otlp.spans.every((span) => span.service === "core-server" ? span.protocol === "json" : span.protocol === "protobuf")).toBe(true)
  })

  it("follows a core command: its requests carry one trace context, and --trace prints its id", async () => {
    const ada = await tenantOf(base, "Ada", "ada-traced")
    const key = await ada.client.iam.apiKeys.create({ organizationId: ada.orgId, name: "ci", permissions: ["org:read"] })
    const home = tempHome()
    try {
      const env = { CORE_API_URL: base }
      const login = await core(home, ["login", "--token", key.key, "--iam-url", `${base}/api/v1/iam`], env)
      expect({ code: login.code, stderr: login.stderr }).toEqual({ code: 0, stderr: "" })
      const listed = await core(home, ["--trace", "orgs", "list", "--json"], env)
      expect(listed.code).toBe(0)
      expect(JSON.parse(listed.stdout)).toMatchObject([{ id: ada.orgId }])
      const traceId = /^trace id: ([0-9a-f]{32})$/m.exec(listed.stderr)?.[1]
      expect(traceId).toBeDefined()
      const spans = await traceOf(traceId!, (found) => found.some((span) => span.service === "core-server" && span.name.startsWith("GET /api/v1/iam/")))
      const edges = spans.filter((span) => span.service === "core-server" && span.name.startsWith("GET /api/v1/iam/"))
      // Every request of the command is a child of the command's one span.
      expect(new Set(edges.map((span) => span.parentSpanId)).size).toBe(1)
      expect(edges[0]!.parentSpanId).toMatch(/^[0-9a-f]{16}$/)
      // The caller's tenant, as the gateway resolved the key.
      expect(edges[0]!.attributes).toMatchObject({ "core.organization_id": ada.orgId, "core.platform_id": ada.platformId, "core.caller.kind": "apikey" })
    } finally {
      home.remove()
    }
  }, SLOW)

  it("marks a failing upstream's span as an error with the envelope's code", async () => {
    registry.child.kill("SIGKILL")
    await registry.exited
    const failed = await fetch(`${base}/api/v1/platforms/plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS`, { headers: service })
    expect(failed.status).toBe(502)
    const traceId = failed.headers.get("x-core-trace-id")!
    const [edge] = await traceOf(traceId, (found) => named(found, "core-server", "GET /api/v1/platforms/{platformId}") !== undefined)
    expect(edge).toMatchObject({ status: 2 })
    expect(edge!.attributes).toMatchObject({ "http.response.status_code": 502, "core.error.code": "UPSTREAM_UNAVAILABLE", "error.type": "UPSTREAM_UNAVAILABLE" })
  }, SLOW)
})

describe("traces of services embedded in a host app", () => {
  it("exports the embedded services' spans as core-embedded, children of the host's traceparent, without the platform's generic span", async () => {
    const endpoint = `http://127.0.0.1:${(otlp.server.address() as AddressInfo).port}`
    const core = Embedded.make({
      NODE_ENV: "test",
      CORE_DATA_DIR: ":memory:",
      CORE_SECRET: SECRET,
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "50"
    }, { logging: { level: "none" } })
    try {
      const trace = "5bf92f3577b34da6a3ce929d0e0e4737"
      const signUp = await core.identity(new Request("http://host.test/api/auth/sign-up/email", {
        method: "POST",
        headers: { "content-type": "application/json", traceparent: `00-${trace}-${INBOUND_SPAN}-01` },
        body: JSON.stringify({ name: "Eve", email: "eve@example.com", password: "correct horse battery" })
      }))
      expect(signUp.status).toBe(200)
      const spans = await traceOf(trace, (found) => named(found, "core-embedded", "POST /api/auth/sign-up/email") !== undefined)
      expect(named(spans, "core-embedded", "POST /api/auth/sign-up/email")).toMatchObject({ parentSpanId: INBOUND_SPAN, kind: 2, protocol: "json" })
      expect(spans.some((span) => span.name.startsWith("http.server"))).toBe(false)
    } finally {
      await core.dispose()
    }
  }, SLOW)
})
